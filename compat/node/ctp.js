// kafkajs consume-transform-produce against gregor (GR_BOOTSTRAP): GR_IN is
// filled with 300 values, a read_committed group consumer copies each batch
// to GR_OUT in a transaction that also commits the batch's input offsets
// (sendOffsets: AddOffsetsToTxn + TxnOffsetCommit). Then the group's
// committed offset must be the end of GR_IN; run.sh checks GR_OUT with
// librdkafka's read_committed consumer. Exit 0 on success.
const { Kafka, logLevel } = require('kafkajs');

const kafka = new Kafka({ clientId: 'gregor-compat-ctp', brokers: [process.env.GR_BOOTSTRAP],
                          logLevel: logLevel.NOTHING,
                          retry: { initialRetryTime: 100, retries: 10 } });
const IN = process.env.GR_IN, OUT = process.env.GR_OUT, N = 300;
const groupId = 'kjs-ctp-group';

async function main() {
  const fill = kafka.producer({ allowAutoTopicCreation: true });
  await fill.connect();
  for (let b = 0; b < N / 50; b++) {
    const messages = [];
    for (let i = 0; i < 50; i++)
      messages.push({ value: 'in-' + (b * 50 + i) });
    await fill.send({ topic: IN, messages });
  }
  await fill.disconnect();

  const producer = kafka.producer({ transactionalId: 'kjs-ctp', idempotent: true,
                                    maxInFlightRequests: 1, allowAutoTopicCreation: true });
  await producer.connect();
  // small fetches: several transactions
  const consumer = kafka.consumer({ groupId, readUncommitted: false, maxBytesPerPartition: 1024 });
  await consumer.connect();
  await consumer.subscribe({ topic: IN, fromBeginning: true });
  let copied = 0, txns = 0;
  const done = new Promise((resolve, reject) => {
    consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset }) => {
        try {
          if (batch.messages.length === 0)
            return;
          const t = await producer.transaction();
          await t.send({ topic: OUT,
                         messages: batch.messages.map((m) => ({ value: 'c-' + m.value })) });
          const last = batch.messages[batch.messages.length - 1].offset;
          await t.sendOffsets({
            consumerGroupId: groupId,
            topics: [{ topic: IN, partitions: [{ partition: batch.partition,
                                                 offset: (BigInt(last) + 1n).toString() }] }],
          });
          await t.commit();
          for (const m of batch.messages)
            resolveOffset(m.offset);
          copied += batch.messages.length;
          txns++;
          if (copied >= N)
            resolve();
        } catch (e) {
          reject(e);
        }
      },
    });
  });
  const timer = setTimeout(() => { console.error('FAIL: copied', copied); process.exit(1); }, 60000);
  await done;
  clearTimeout(timer);
  await consumer.disconnect();
  await producer.disconnect();

  const admin = kafka.admin();
  await admin.connect();
  const offs = await admin.fetchOffsets({ groupId, topics: [IN] });
  await admin.disconnect();
  const off = offs[0].partitions[0].offset;
  if (copied !== N || off !== String(N))
    throw new Error(`copied ${copied}, committed offset ${off}`);
  console.log(`ok: ${copied} copied in ${txns} transactions, offset ${off}`);
}

main().catch((e) => { console.error('FAIL:', e); process.exit(1); });
