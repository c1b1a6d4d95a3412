// @platformatic/kafka 2.12.1 Admin against gregor (GR_BOOTSTRAP): topics
// (CreateTopics with configs, Metadata, ListTopics, DeleteTopics),
// partitions (CreatePartitions, validateOnly), configs (DescribeConfigs
// with synonyms, sources, types and filters; AlterConfigs replacing the
// topic's set; IncrementalAlterConfigs SET, DELETE, APPEND, SUBTRACT on a
// topic and on the broker), records (ListOffsets, DeleteRecords),
// DescribeLogDirs, DescribeCluster (low-level API: Admin has no method),
// and the errors Kafka gives: TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS,
// INVALID_REPLICATION_FACTOR, INVALID_TOPIC_EXCEPTION, INVALID_CONFIG (bad
// value, unknown name, APPEND to a non-list), UNKNOWN_TOPIC_OR_PARTITION,
// OFFSET_OUT_OF_RANGE, POLICY_VIOLATION; CreateAcls (SECURITY_DISABLED without an
// authorizer) and client quotas (AlterClientQuotas, DescribeClientQuotas).
// Exit 0 on success.
'use strict';
const { pk, base, check, eq, expectError, admin, connection, J, soft, finish, eventually } = require('./common');

const B = (s) => Buffer.from(s);
const TOPIC = pk.ConfigResourceTypes.TOPIC, BROKER = pk.ConfigResourceTypes.BROKER;
const S = pk.ConfigSources;
const OP = pk.IncrementalAlterConfigOperationTypes;

async function raw(fn) {
  const c = await connection();
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

async function describe(adm, type, name, keys, extra = {}) {
  const r = await adm.describeConfigs({ resources: [{ resourceType: type, resourceName: name, configurationKeys: keys }],
                                        includeSynonyms: true, ...extra });
  check(r.length === 1, 'describeConfigs: one resource', r);
  return new Map(r[0].configs.map((c) => [c.name, c]));
}

const vs = (m, name) => { const c = m.get(name); return c && [c.value, c.configSource]; };

async function main() {
  const adm = admin();
  const t = 'pka', tn = 'pka-new';

  // topics
  const created = await adm.createTopics({ topics: [t], partitions: 2, replicas: 1,
    configs: [{ name: 'retention.ms', value: '123456' }, { name: 'cleanup.policy', value: 'compact,delete' }] });
  eq([created[0].name, created[0].partitions, created[0].replicas, created[0].configuration['retention.ms'],
      created[0].configuration['cleanup.policy']], [t, 2, 1, '123456', 'compact,delete'], 'createTopics result');
  check(/^[0-9a-f-]{36}$/.test(created[0].id), 'topic id', created[0].id);
  check((await adm.listTopics()).includes(t), 'listTopics');
  const md = await adm.metadata({ topics: [t], forceUpdate: true });
  const tm = md.topics.get(t);
  eq([tm.id, tm.partitionsCount, tm.partitions.map((p) => [p.leader, p.replicas, p.isr])],
     [created[0].id, 2, [[1, [1], [1]], [1, [1], [1]]]], 'metadata');
  const [host, port] = base.bootstrapBrokers[0].split(':');
  const b1 = md.brokers.get(1);
  eq([b1 && b1.host, b1 && b1.port, md.controllerId], [host, Number(port), 1], 'metadata brokers');
  const dc = await raw((c) => pk.describeClusterV1.api.async(c, false, pk.DescribeClusterEndpointTypes.BROKERS));
  eq([dc.clusterId, dc.controllerId, dc.brokers.map((x) => [x.brokerId, x.host, x.port])],
     [md.id, 1, [[1, host, Number(port)]]], 'DescribeCluster v1');
  console.log('# platformatic: Admin has no describeCluster; DescribeCluster v1 sent through the low-level API');

  await expectError(adm.createTopics({ topics: [t], partitions: 1, replicas: 1 }), 'TOPIC_ALREADY_EXISTS', 'create it again');
  await expectError(adm.createTopics({ topics: ['pka-zero'], partitions: 0, replicas: 1 }), 'INVALID_PARTITIONS', '0 partitions');
  await expectError(adm.createTopics({ topics: ['pka-rf'], partitions: 1, replicas: 3 }), 'INVALID_REPLICATION_FACTOR',
                    'replication factor 3 on one broker');
  await expectError(adm.createTopics({ topics: ['pka/bad'], partitions: 1, replicas: 1 }), 'INVALID_TOPIC_EXCEPTION',
                    'a name with a slash');
  await expectError(adm.createTopics({ topics: ['pka-bad'], partitions: 1, replicas: 1, configs: [{ name: 'retention.ms', value: 'forever' }] }),
                    'INVALID_CONFIG', 'retention.ms=forever');
  await expectError(adm.createTopics({ topics: ['pka-bad'], partitions: 1, replicas: 1, configs: [{ name: 'no.such.config', value: '1' }] }),
                    'INVALID_CONFIG', 'an unknown topic config');
  await expectError(adm.createTopics({ topics: ['pka-bad'], partitions: 1, replicas: 1, configs: [{ name: 'cleanup.policy', value: 'shred' }] }),
                    'INVALID_CONFIG', 'cleanup.policy=shred');
  const names = await adm.listTopics();
  check(!names.some((n) => ['pka-zero', 'pka-rf', 'pka/bad', 'pka-bad'].includes(n)), 'a refused topic exists', names);

  // partitions
  await adm.createPartitions({ topics: [{ name: t, count: 4 }] });
  await adm.createPartitions({ topics: [{ name: t, count: 6 }], validateOnly: true });
  eq((await adm.metadata({ topics: [t], forceUpdate: true })).topics.get(t).partitionsCount, 4, 'createPartitions 2 -> 4, validateOnly 6');
  await expectError(adm.createPartitions({ topics: [{ name: t, count: 3 }] }), 'INVALID_PARTITIONS', 'fewer partitions');
  await expectError(adm.createPartitions({ topics: [{ name: 'pka-absent', count: 3 }] }), 'UNKNOWN_TOPIC_OR_PARTITION',
                    'partitions for a missing topic');

  // configs: a topic's
  let c = await describe(adm, TOPIC, t, null, { includeDocumentation: true });
  eq(vs(c, 'retention.ms'), ['123456', S.DYNAMIC_TOPIC_CONFIG], 'retention.ms');
  eq(vs(c, 'cleanup.policy'), ['compact,delete', S.DYNAMIC_TOPIC_CONFIG], 'cleanup.policy');
  eq(vs(c, 'segment.bytes'), ['1073741824', S.DEFAULT_CONFIG], 'segment.bytes');
  eq([c.get('retention.ms').configType, c.get('cleanup.policy').configType, c.get('preallocate').configType],
     [pk.ConfigTypes.LONG, pk.ConfigTypes.LIST, pk.ConfigTypes.BOOLEAN], 'config types (v3+)');
  eq(c.get('cleanup.policy').synonyms, [{ name: 'cleanup.policy', value: 'compact,delete', source: S.DYNAMIC_TOPIC_CONFIG },
                                         { name: 'log.cleanup.policy', value: 'delete', source: S.DEFAULT_CONFIG }],
     'cleanup.policy synonyms');
  // Kafka lists the broker synonyms from log.retention.ms on
  // (ConfigHelper.configSynonyms drops those before it): log.retention.hours,
  // though it has the default, is not one of retention.ms's
  await soft(() => eq(c.get('retention.ms').synonyms, [{ name: 'retention.ms', value: '123456', source: S.DYNAMIC_TOPIC_CONFIG }],
                      'retention.ms synonyms (Kafka 4.4: the topic\'s only)'));
  await soft(async () => check(typeof c.get('retention.ms').documentation === 'string' && c.get('retention.ms').documentation.length > 10,
                               'DescribeConfigs v4 includeDocumentation: Kafka documents retention.ms', c.get('retention.ms').documentation));
  c = await describe(adm, TOPIC, t, ['segment.bytes', 'retention.ms']);
  eq([...c.keys()].sort(), ['retention.ms', 'segment.bytes'], 'configurationKeys filter');
  c = await describe(adm, BROKER, '1', ['num.partitions', 'log.retention.hours', 'log.retention.ms']);
  eq(vs(c, 'num.partitions'), ['3', S.STATIC_BROKER_CONFIG], 'broker num.partitions (--override)');
  eq(c.get('num.partitions').synonyms, [{ name: 'num.partitions', value: '3', source: S.STATIC_BROKER_CONFIG },
                                        { name: 'num.partitions', value: '1', source: S.DEFAULT_CONFIG }], 'num.partitions synonyms');
  eq(vs(c, 'log.retention.hours'), ['168', S.DEFAULT_CONFIG], 'broker log.retention.hours');
  // Kafka: log.retention.hours is not dynamic (log.retention.ms is), and a
  // key asked for without a value is described with a null one
  await soft(() => eq(c.get('log.retention.hours').readOnly, true, 'broker log.retention.hours read-only (Kafka 4.4)'));
  await soft(() => eq(c.has('log.retention.ms') && [c.get('log.retention.ms').value, c.get('log.retention.ms').configSource,
                                                   c.get('log.retention.ms').readOnly],
                      [null, S.DEFAULT_CONFIG, false], 'broker log.retention.ms asked for by name (Kafka 4.4: null, default)'));
  await expectError(describe(adm, TOPIC, 'pka-absent', null), 'UNKNOWN_TOPIC_OR_PARTITION', 'configs of a missing topic');

  // AlterConfigs replaces the topic's whole set
  await adm.alterConfigs({ resources: [{ resourceType: TOPIC, resourceName: t, configs: [{ name: 'retention.ms', value: '1000000' }] }] });
  c = await describe(adm, TOPIC, t, ['retention.ms', 'cleanup.policy']);
  eq([vs(c, 'retention.ms'), vs(c, 'cleanup.policy')], [['1000000', S.DYNAMIC_TOPIC_CONFIG], ['delete', S.DEFAULT_CONFIG]],
     'AlterConfigs: retention.ms set, cleanup.policy back to its default');
  await adm.alterConfigs({ resources: [{ resourceType: TOPIC, resourceName: t, configs: [{ name: 'retention.ms', value: '42' }] }], validateOnly: true });
  eq(vs(await describe(adm, TOPIC, t, ['retention.ms']), 'retention.ms'), ['1000000', S.DYNAMIC_TOPIC_CONFIG], 'AlterConfigs validateOnly');
  await expectError(adm.alterConfigs({ resources: [{ resourceType: TOPIC, resourceName: t, configs: [{ name: 'retention.ms', value: 'soon' }] }] }),
                    'INVALID_CONFIG', 'AlterConfigs retention.ms=soon');

  // IncrementalAlterConfigs
  await adm.incrementalAlterConfigs({ resources: [{ resourceType: TOPIC, resourceName: t, configs: [
    { name: 'segment.ms', configOperation: OP.SET, value: '3600000' },
    { name: 'cleanup.policy', configOperation: OP.APPEND, value: 'compact' },
    { name: 'retention.ms', configOperation: OP.DELETE }] }] });
  c = await describe(adm, TOPIC, t, ['segment.ms', 'cleanup.policy', 'retention.ms']);
  eq([vs(c, 'segment.ms'), vs(c, 'cleanup.policy'), vs(c, 'retention.ms')],
     [['3600000', S.DYNAMIC_TOPIC_CONFIG], ['delete,compact', S.DYNAMIC_TOPIC_CONFIG], ['604800000', S.DEFAULT_CONFIG]],
     'IncrementalAlterConfigs SET, APPEND, DELETE');
  await adm.incrementalAlterConfigs({ resources: [{ resourceType: TOPIC, resourceName: t, configs: [
    { name: 'cleanup.policy', configOperation: OP.SUBTRACT, value: 'delete' }] }] });
  eq(vs(await describe(adm, TOPIC, t, ['cleanup.policy']), 'cleanup.policy'), ['compact', S.DYNAMIC_TOPIC_CONFIG], 'SUBTRACT');
  await expectError(adm.incrementalAlterConfigs({ resources: [{ resourceType: TOPIC, resourceName: t, configs: [
    { name: 'retention.ms', configOperation: OP.APPEND, value: '5' }] }] }), 'INVALID_CONFIG', 'APPEND to a LONG');
  await expectError(adm.incrementalAlterConfigs({ resources: [{ resourceType: TOPIC, resourceName: t, configs: [
    { name: 'no.such.config', configOperation: OP.SET, value: '1' }] }] }), 'INVALID_CONFIG', 'SET an unknown topic config');
  // the broker's: a new topic takes the dynamic default
  await adm.incrementalAlterConfigs({ resources: [{ resourceType: BROKER, resourceName: '1', configs: [
    { name: 'log.retention.ms', configOperation: OP.SET, value: '3600000' }] }] });
  await eventually(async () => eq(vs(await describe(adm, BROKER, '1', ['log.retention.ms']), 'log.retention.ms'),
                                   ['3600000', S.DYNAMIC_BROKER_CONFIG], 'broker log.retention.ms set'));
  await adm.createTopics({ topics: [tn], partitions: 1, replicas: 1 });
  await eventually(async () => eq(vs(await describe(adm, TOPIC, tn, ['retention.ms']), 'retention.ms'),
                                  ['3600000', S.DYNAMIC_BROKER_CONFIG], 'a topic\'s retention.ms from the broker\'s dynamic log.retention.ms'));
  await adm.incrementalAlterConfigs({ resources: [{ resourceType: BROKER, resourceName: '1', configs: [
    { name: 'log.retention.ms', configOperation: OP.DELETE }] }] });
  await eventually(async () => eq(vs(await describe(adm, TOPIC, tn, ['retention.ms']), 'retention.ms'),
                                  ['604800000', S.DEFAULT_CONFIG], 'retention.ms after the broker\'s is deleted'));

  // records
  const p = new pk.Producer({ ...base, clientId: 'pk-admin-p' });
  await p.send({ messages: Array.from({ length: 10 }, (_, i) => ({ topic: t, partition: 0, key: B('k' + i), value: B('v' + i) })) });
  await p.close();
  const lo = async (ts) => (await adm.listOffsets({ topics: [{ name: t, partitions: [{ partitionIndex: 0, timestamp: ts }] }] }))[0]
    .partitions[0].offset;
  eq([await lo(-2n), await lo(-1n)], [0n, 10n], 'ListOffsets earliest, latest');
  // Kafka refuses DeleteRecords while cleanup.policy has no delete
  await expectError(adm.deleteRecords({ topics: [{ name: t, partitions: [{ partition: 0, offset: 4n }] }] }),
                    'POLICY_VIOLATION', 'DeleteRecords on a compact topic');
  await adm.incrementalAlterConfigs({ resources: [{ resourceType: TOPIC, resourceName: t, configs: [
    { name: 'cleanup.policy', configOperation: OP.SET, value: 'delete' }] }] });
  let dr = await adm.deleteRecords({ topics: [{ name: t, partitions: [{ partition: 0, offset: 4n }] }] });
  eq(dr[0].partitions[0].lowWatermark, 4n, 'DeleteRecords to 4');
  eq([await lo(-2n), await lo(-4n), await lo(-1n)], [4n, 4n, 10n], 'ListOffsets after DeleteRecords (earliest, earliest local, latest)');
  await expectError(adm.deleteRecords({ topics: [{ name: t, partitions: [{ partition: 0, offset: 11n }] }] }),
                    'OFFSET_OUT_OF_RANGE', 'DeleteRecords past the high watermark');
  dr = await adm.deleteRecords({ topics: [{ name: t, partitions: [{ partition: 0, offset: -1n }] }] });
  eq(dr[0].partitions[0].lowWatermark, 10n, 'DeleteRecords to -1 (the high watermark)');

  // log dirs
  const ld = await adm.describeLogDirs({ topics: [{ name: t, partitions: [0, 1] }] });
  const dir = ld[0].results[0];
  check(ld[0].broker === 1 && dir.logDir && dir.logDir.length > 0, 'describeLogDirs', ld);
  const lt = dir.topics.find((x) => x.name === t);
  eq(lt && lt.partitions.map((x) => x.partitionIndex).sort(), [0, 1], 'describeLogDirs partitions');
  check(lt.partitions.find((x) => x.partitionIndex === 0).partitionSize > 0n, 'partition 0 has bytes', lt);

  // ACLs and client quotas: served by Kafka 4.x and by gregor (ACLs
  // answer SECURITY_DISABLED without an authorizer); an API missing from
  // ApiVersions fails here rather than leaving the client's calls untried
  const apis = await raw((cn) => pk.apiVersionsV3.api.async(cn, 'gregor-compat', '1'));
  const has = (name) => apis.apiKeys.some((a) => a.name === name);
  for (const name of ['CreateAcls', 'DescribeAcls', 'DeleteAcls', 'AlterClientQuotas', 'DescribeClientQuotas']) {
    check(has(name), `${name} in ApiVersions`);
  }
  await expectError(adm.createAcls({ creations: [{ resourceType: pk.ResourceTypes.TOPIC, resourceName: t,
    resourcePatternType: pk.ResourcePatternTypes.LITERAL, principal: 'User:x', host: '*',
    operation: pk.AclOperations.READ, permissionType: pk.AclPermissionTypes.ALLOW }] }),
  'SECURITY_DISABLED', 'CreateAcls without an authorizer');
  const entity = [{ entityType: 'client-id', entityName: 'pk-quota' }];
  await adm.alterClientQuotas({ entries: [{ entities: entity, ops: [{ key: 'producer_byte_rate', value: 1048576, remove: false }] }] });
  await eventually(async () => {
    const q = await adm.describeClientQuotas({ components: [{ entityType: 'client-id', matchType: pk.ClientQuotaMatchTypes.EXACT, match: 'pk-quota' }] });
    eq(J(q), J([{ entity, values: [{ key: 'producer_byte_rate', value: 1048576 }] }]), 'client quotas');
  });

  // delete
  await adm.deleteTopics({ topics: [t, tn] });
  const left = await adm.listTopics();
  check(!left.includes(t) && !left.includes(tn), 'deleteTopics', left);
  await expectError(adm.deleteTopics({ topics: [t] }), 'UNKNOWN_TOPIC_OR_PARTITION', 'delete it again');
  await expectError(describe(adm, TOPIC, t, null), 'UNKNOWN_TOPIC_OR_PARTITION', 'configs of the deleted topic');
  const again = await adm.createTopics({ topics: [t], partitions: 1, replicas: 1 });
  check(again[0].id !== created[0].id, 'the recreated topic has a new id', again[0].id);
  eq(vs(await describe(adm, TOPIC, t, ['retention.ms']), 'retention.ms'), ['604800000', S.DEFAULT_CONFIG],
     'the recreated topic has none of the old configs');
  await adm.close();
  finish();
  console.log('ok');
}

main().then(() => process.exit(0)).catch((e) => { console.error('FAIL:', e); process.exit(1); });
