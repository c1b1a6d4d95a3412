// kafkajs produces to gregor (GR_BOOTSTRAP, topic GR_TOPIC): batches with
// gzip and without, acks -1 and 1, keys and headers. run.sh checks what a
// librdkafka consumer reads back. Exit 0 on success.
const { Kafka, logLevel, CompressionTypes } = require('kafkajs');

async function main() {
  const kafka = new Kafka({ clientId: 'gregor-compat', brokers: [process.env.GR_BOOTSTRAP],
                            logLevel: logLevel.WARN });
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  const topic = process.env.GR_TOPIC;
  let n = 0;
  for (const [compression, acks] of [[CompressionTypes.None, -1], [CompressionTypes.GZIP, 1]]) {
    const messages = [];
    for (let i = 0; i < 50; i++, n++)
      messages.push({ key: 'k' + n, value: 'kafkajs-' + n, headers: { n: String(n) } });
    const res = await producer.send({ topic, compression, acks, messages });
    if (res.length !== 1 || res[0].errorCode !== 0) throw new Error(JSON.stringify(res));
  }
  await producer.disconnect();
  console.log('ok', n);
}

main().catch((e) => { console.error('FAIL:', e); process.exit(1); });
