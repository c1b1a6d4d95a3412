// The control interface's HTTP API (GR_CONTROL, "gregor: control on URL")
// for the node:test files: one request, its JSON answer, the status
// asserted when want is given.
const assert = require('node:assert/strict');

async function ctl(method, path, body, want) {
  const r = await fetch(process.env.GR_CONTROL + path,
                        { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const out = await r.json();
  if (want !== undefined)
    assert.equal(r.status, want, `${method} ${path}: ${JSON.stringify(out)}`);
  return out;
}

module.exports = { ctl };
