// kafkajs over SASL/PLAIN and SCRAM, for compat/sasl/scenarios.sh.
//   node sasl.js CASE...
// Each CASE is one argument, "BOOT|PROTO|CA|MECH|USER|PW|TOPIC|TEXT" (as
// compat/sasl/SaslCompat.java's): TEXT empty, 20 records are produced to
// TOPIC (acks -1) and consumed back by a new group from the beginning;
// else connecting the producer must fail with a
// KafkaJSSASLAuthenticationError whose message is kafkajs's prefix then
// TEXT exactly. PROTO
// SASL_SSL: CA is the CA's PEM. Exit 0 when every case held.
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

function client(c) {
  const [boot, proto, ca, mech, username, password] = c;
  return new Kafka({
    clientId: 'gregor-sasl', brokers: [boot], logLevel: logLevel.NOTHING,
    ssl: proto === 'SASL_SSL' ? { ca: [fs.readFileSync(ca)], servername: 'localhost' } : false,
    sasl: { mechanism: mech.toLowerCase(), username, password },
    retry: { retries: 2 },
  });
}

async function ok(c) {
  const topic = c[6];
  const kafka = client(c);
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  const messages = [];
  for (let i = 0; i < 20; i++) messages.push({ key: 'k' + i, value: 'v' + i });
  await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: 'sasl-' + topic });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(topic + ': consumed ' + got.length + ' of 20')), 30000);
    consumer.run({
      eachMessage: async ({ message }) => {
        got.push(message.value.toString());
        if (got.length === 20) { clearTimeout(timer); resolve(); }
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  for (let i = 0; i < 20; i++)
    if (got[i] !== 'v' + i) throw new Error(topic + ': record ' + i + ' is ' + got[i]);
  console.log(`# kafkajs: ${c[3]} as ${c[4]} over ${c[1]}: 20 records produced and consumed`);
}

async function refused(c) {
  const producer = client(c).producer();
  let err = null;
  try {
    await producer.connect();
    await producer.send({ topic: c[6], messages: [{ value: 'refused' }] });
  } catch (e) {
    err = e;
  }
  await producer.disconnect().catch(() => {});
  if (err === null) throw new Error(c[3] + ' as ' + c[4] + ': a record acknowledged after a wrong password');
  // kafkajs puts its own words before the broker's message
  const want = `SASL ${c[3] === 'PLAIN' ? 'PLAIN' : c[3].replace('-SHA-', ' SHA')} authentication failed: ${c[7]}`;
  if (err.name !== 'KafkaJSSASLAuthenticationError' || err.message !== want)
    throw new Error(`${c[3]}: want KafkaJSSASLAuthenticationError "${want}", got ${err.name}: ${err.message}`);
  console.log(`# kafkajs: ${c[3]} as ${c[4]} (password ${c[5]}) refused over ${c[1]}: ${err.name}: ${err.message}`);
}

async function main() {
  for (const a of process.argv.slice(2)) {
    const c = a.split('|');
    if (c.length !== 8) throw new Error('bad case ' + a);
    await (c[7] === '' ? ok(c) : refused(c));
  }
}

main().catch((e) => { console.log('FAIL kafkajs:', e.message); process.exit(1); });
