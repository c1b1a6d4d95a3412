// kafkajs connects to gregor (GR_BOOTSTRAP), lists the cluster and creates a
// topic through Metadata auto-creation. Exit 0 on success.
const { Kafka, logLevel } = require('kafkajs');

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-compat',
    brokers: [process.env.GR_BOOTSTRAP],
    logLevel: logLevel.WARN,
    retry: { retries: 3 },
  });
  const admin = kafka.admin();
  await admin.connect();
  const cluster = await admin.describeCluster();
  if (cluster.brokers.length !== 1) throw new Error('brokers: ' + JSON.stringify(cluster));
  if (!cluster.clusterId) throw new Error('no cluster id');
  // admin metadata requests do not auto-create: run.sh created it with kcat
  const topic = process.env.GR_TOPIC;
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  if (md.topics.length !== 1 || md.topics[0].partitions.length !== 1)
    throw new Error('metadata: ' + JSON.stringify(md));
  const topics = await admin.listTopics();
  if (!topics.includes(topic)) throw new Error('listTopics: ' + JSON.stringify(topics));
  await admin.disconnect();
  console.log('ok', cluster.clusterId, topics.length, 'topics');
}

main().catch((e) => { console.error('FAIL:', e); process.exit(1); });
