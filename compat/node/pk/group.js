// @platformatic/kafka 2.12.1 consumer groups against gregor (GR_BOOTSTRAP),
// classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), the
// client's round robin assignor:
//   - member A alone gets all 4 partitions and commits each message it reads
//     (OffsetCommit); member B joins: both rebalance to one generation with
//     2 partitions each, disjoint; every message is consumed, B resuming
//     from what A committed; B leaves: A gets all 4 again and reads 40 new
//     messages; committed offsets read back by the consumer (OffsetFetch)
//     and the admin, and the lag is 0
//   - admin: ListGroups, DescribeGroups (Stable with its members and their
//     assignments, then Empty, then Dead), DeleteGroups refused while a
//     member is in (NON_EMPTY_GROUP), admin offset commits refused then
//     (UNKNOWN_MEMBER_ID) and taken when Empty, OffsetDelete, a member
//     removed by LeaveGroup from the admin (and UNKNOWN_MEMBER_ID for one
//     that is not there)
// Exit 0 on success.
'use strict';
const { pk, base, sleep, check, eq, expectError, admin, connection, J } = require('./common');

const topic = 'pkg';
const group = 'pkg-g';
const NP = 4;
const B = (s) => Buffer.from(s);

function newMember(name, extra = {}) {
  const c = new pk.Consumer({ ...base, clientId: 'pk-' + name, groupId: group, autocommit: false,
                              heartbeatInterval: 100, sessionTimeout: 3000, rebalanceTimeout: 5000,
                              maxWaitTime: 100, highWaterMark: 8, ...extra });
  const m = { name, c, joins: [], seen: [], stream: null, done: null, pauseAt: -1, resume: null, skipped: 0 };
  c.on('consumer:group:join', (e) => {
    m.joins.push({ generation: e.generationId, parts: partsOf(e.assignments) });
  });
  return m;
}

function partsOf(assignments) {
  const a = (assignments || []).find((x) => x.topic === topic);
  return a ? [...a.partitions].sort((x, y) => x - y) : [];
}

// reads and commits every message, one at a time
async function run(m) {
  m.stream = await m.c.consume({ topics: [topic], mode: pk.MessagesStreamModes.COMMITTED,
                                 fallbackMode: pk.MessagesStreamFallbackModes.EARLIEST });
  m.done = (async () => {
    for await (const msg of m.stream) {
      // what the stream had fetched for a partition since lost is delivered
      // all the same: skipped, as an application's revocation would
      if (!m.joins[m.joins.length - 1].parts.includes(msg.partition)) {
        m.skipped++;
        continue;
      }
      m.seen.push([msg.partition, msg.offset, msg.value.toString()]);
      await msg.commit();
      if (m.seen.length === m.pauseAt) await new Promise((r) => { m.resume = r; });
    }
  })();
}

async function waitFor(what, cond, ms = 20000) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for ' + what);
    await sleep(20);
  }
}

async function produce(p, from, to) {
  const messages = [];
  for (let part = 0; part < NP; part++)
    for (let i = from; i < to; i++) messages.push({ topic, partition: part, key: B(`k${i}`), value: B(`p${part}-${i}`) });
  await p.send({ messages });
}

async function main() {
  const adm = admin();
  await adm.createTopics({ topics: [topic], partitions: NP, replicas: 1 });
  // idempotent: a retry after stale metadata re-sends the whole request
  const p = new pk.Producer({ ...base, clientId: 'pk-group-p', idempotent: true, retries: 10 });
  await produce(p, 0, 100);

  // A alone
  const A = newMember('A');
  A.pauseAt = 100; // A stops reading (and committing) after 100
  await run(A);
  await waitFor('A to read 100', () => A.resume);
  eq(A.joins[0].parts, [0, 1, 2, 3], 'A alone: every partition');
  const gen1 = A.joins[A.joins.length - 1].generation;

  // B joins: a rebalance
  const B2 = newMember('B');
  await run(B2);
  const split = () => {
    const a = A.joins[A.joins.length - 1], b = B2.joins[B2.joins.length - 1];
    return a && b && a.generation === b.generation && a.generation > gen1 ? [a, b] : null;
  };
  await waitFor('A and B in one generation', split);
  const [ja, jb] = split();
  const aBefore = new Map(); // partition -> the offset A committed (its last read + 1)
  for (const [part, off] of A.seen) if (!aBefore.has(part) || aBefore.get(part) <= off) aBefore.set(part, off + 1n);
  A.resume();
  eq([ja.parts.length, jb.parts.length], [2, 2], 'two partitions each');
  eq([...ja.parts, ...jb.parts].sort(), [0, 1, 2, 3], 'disjoint, every partition');
  const distinct = () => new Set([...A.seen, ...B2.seen].map((x) => x[2])).size;
  await waitFor('all 400 read', () => distinct() === 400);
  await sleep(300);
  check(B2.seen.length > 0, 'B read nothing');
  for (const [part] of B2.seen) check(jb.parts.includes(part), 'B read a partition not its own', part);
  // B starts each of its partitions exactly where A's commits left it
  const dup = A.seen.length + B2.seen.length - distinct();
  const bValues = new Set(B2.seen.map((x) => x[2]));
  eq(A.seen.filter((x) => bValues.has(x[2])).length, 0, 'messages read by both A and B');
  for (const part of jb.parts) {
    const first = B2.seen.find((x) => x[0] === part);
    eq(first && first[1], aBefore.get(part) || 0n, `B's first offset in partition ${part} (A's commit)`);
  }
  if (dup)
    console.log(`# platformatic: after the rebalance A read ${dup} messages twice: those it had buffered of a ` +
                'partition it kept, then the same again from the committed offset (at-least-once, client side)');
  console.log(`rebalance: generation ${gen1} -> ${ja.generation}, A ${J(ja.parts)}, B ${J(jb.parts)}; ` +
              `A read ${A.seen.length}, B ${B2.seen.length}, A skipped ${A.skipped} buffered of the partitions it lost`);

  // admin while both are in
  const groups = await adm.listGroups();
  const listed = groups.get ? groups.get(group) : groups.find((g) => g.id === group);
  check(listed && listed.protocolType === 'consumer' && listed.state === 'Stable' && listed.groupType === 'classic',
        'listGroups', listed);
  let d = (await adm.describeGroups({ groups: [group] })).get(group);
  check(d.state === 'Stable' && d.protocolType === 'consumer' && d.protocol === 'roundrobin', 'describeGroups', d);
  eq(d.members.size, 2, 'two members described');
  const described = [...d.members.values()].map((x) => [x.clientId, partsOf([...(x.assignments || new Map()).values()])])
    .sort();
  eq(described, [['pk-A', ja.parts], ['pk-B', jb.parts]], 'members and their assignments');
  await expectError(adm.deleteGroups({ groups: [group] }), 'NON_EMPTY_GROUP', 'DeleteGroups with members');
  await expectError(adm.alterConsumerGroupOffsets({ groupId: group, topics: [{ name: topic, partitionOffsets: [{ partition: 0, offset: 1n }] }] }),
                    'UNKNOWN_MEMBER_ID', 'admin OffsetCommit with members');

  // B leaves: A takes every partition again
  const genB = ja.generation;
  await B2.stream.close();
  await B2.c.close();
  await B2.done;
  await waitFor('A to rejoin alone', () => A.joins[A.joins.length - 1].generation > genB);
  eq(A.joins[A.joins.length - 1].parts, [0, 1, 2, 3], 'A after B left: every partition');
  await produce(p, 100, 110);
  await waitFor('the 40 new ones', () => distinct() === 440);
  const late = A.seen.filter((x) => Number(x[2].split('-')[1]) >= 100);
  eq(late.length, 40, 'A read the 40 new ones once');

  // commits read back
  const committed = await A.c.listCommittedOffsets({ topics: [{ topic, partitions: [0, 1, 2, 3] }] });
  eq(committed.get(topic), [110n, 110n, 110n, 110n], 'Consumer.listCommittedOffsets');
  const lag = await A.c.getLag({ topics: [topic] });
  eq(lag.get(topic), [0n, 0n, 0n, 0n], 'getLag');
  await A.stream.close();
  await A.c.close();
  await A.done;

  let offs = await adm.listConsumerGroupOffsets({ groups: [group] });
  const byPart = (o) => Object.fromEntries(o[0].topics.find((t) => t.name === topic).partitions
    .map((x) => [x.partitionIndex, x.committedOffset]));
  eq(byPart(offs), { 0: 110n, 1: 110n, 2: 110n, 3: 110n }, 'admin listConsumerGroupOffsets');
  d = (await adm.describeGroups({ groups: [group] })).get(group);
  check(d.state === 'Empty' && d.members.size === 0, 'Empty after both left', d);

  // Empty: the admin may move, and delete, offsets
  await adm.alterConsumerGroupOffsets({ groupId: group, topics: [{ name: topic, partitionOffsets: [{ partition: 0, offset: 5n }] }] });
  await adm.deleteConsumerGroupOffsets({ groupId: group, topics: [{ name: topic, partitionIndexes: [1] }] });
  offs = await adm.listConsumerGroupOffsets({ groups: [{ groupId: group, topics: [{ name: topic, partitionIndexes: [0, 1, 2, 3] }] }] });
  eq(byPart(offs), { 0: 5n, 1: -1n, 2: 110n, 3: 110n }, 'after alterConsumerGroupOffsets and deleteConsumerGroupOffsets');

  // a member removed by the admin (LeaveGroup v3+ by member id)
  const C = newMember('C');
  await run(C);
  await waitFor('C to join', () => C.joins.length > 0);
  eq(C.joins[0].parts, [0, 1, 2, 3], 'C alone');
  await waitFor('C to read from the committed offsets', () => C.seen.length >= 110 - 5 + 110);
  eq(C.seen.filter((x) => x[0] === 0)[0][1], 5n, 'C resumes partition 0 at the altered offset');
  eq(C.seen.filter((x) => x[0] === 1)[0][1], 0n, 'C starts partition 1 at the earliest (offset deleted)');
  const memberId = C.c.memberId;
  await expectError(adm.removeMembersFromConsumerGroup({ groupId: group, members: [{ memberId: 'no-such-member' }] }),
                    'UNKNOWN_MEMBER_ID', 'remove a member that is not there');
  await adm.removeMembersFromConsumerGroup({ groupId: group, members: [{ memberId, reason: 'compat' }] });
  d = (await adm.describeGroups({ groups: [group] })).get(group);
  check(![...d.members.keys()].includes(memberId), 'removed member still described', [...d.members.keys()]);
  // C learns it on its next heartbeat (UNKNOWN_MEMBER_ID) and joins again
  await waitFor('C to join again', () => C.joins.length > 1 && C.c.memberId !== memberId);
  console.log('removed member', memberId.slice(-12), 'rejoined as', C.c.memberId.slice(-12));
  await C.stream.close();
  await C.c.close();
  await C.done;

  await adm.deleteGroups({ groups: [group] });
  const after = await adm.listGroups();
  check(!(after.get ? after.get(group) : after.find((g) => g.id === group)), 'deleted group still listed');
  d = (await adm.describeGroups({ groups: [group] })).get(group);
  eq(d.state, 'Dead', 'a deleted group is described Dead');
  await p.close();
  await adm.close();
  // KIP-848 (groupProtocol 'consumer'): Kafka 4.4 serves it, with heartbeats
  // of at least 5 s (group.consumer.min.heartbeat.interval.ms)
  const c = await connection();
  const apis = await pk.apiVersionsV3.api.async(c, 'gregor-compat', '1');
  await c.close();
  const kip848 = apis.apiKeys.some((a) => a.name === 'ConsumerGroupHeartbeat');
  console.log(kip848 ? '# the broker lists ConsumerGroupHeartbeat; groupProtocol \'consumer\' not run here (Kafka\'s 5 s heartbeats)'
    : '# gregor: no ConsumerGroupHeartbeat/ConsumerGroupDescribe (KIP-848) in ApiVersions: groupProtocol \'consumer\' not run');
  console.log('ok');
}

main().then(() => process.exit(0)).catch((e) => { console.error('FAIL:', e); process.exit(1); });
