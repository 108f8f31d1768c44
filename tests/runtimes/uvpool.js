// SPDX-License-Identifier: MIT
// uvpool.js -- node's libuv thread pool under libclof-preload.so
// (runtimes_suite.sh): the pool's work queue is a pthread mutex and
// condition variable (uv_mutex_t, uv_cond_t), and its threads take every
// crypto.pbkdf2 and fs call.  Two parts, each checks its results: PBKDF2
// many at once, each against the same derivation computed synchronously; and
// file round trips in a temporary folder (write, read back, compare).  A
// mismatch: a line on stderr, exit 1.  At the end one line "ok ...".
// Run: UV_THREADPOOL_SIZE=8 node tests/runtimes/uvpool.js [SCALE]
'use strict';
// the pool starts at the first call that needs it: the size is read then
process.env.UV_THREADPOOL_SIZE = process.env.UV_THREADPOOL_SIZE || '8';
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const scale = Number(process.argv[2] || 1);

function fail(what) {
  process.stderr.write(`uvpool: FAIL ${what}\n`);
  process.exit(1);
}

function pbkdf2(pw, salt, iter) {
  return new Promise((resolve, reject) => {
    crypto.pbkdf2(pw, salt, iter, 32, 'sha256', (err, key) => (err ? reject(err) : resolve(key)));
  });
}

// CALLS derivations at once, each distinct (password, salt); the pool runs 8
async function kdfs(calls, iter) {
  const jobs = [];
  for (let i = 0; i < calls; i++) {
    jobs.push(pbkdf2(`password-${i}`, `salt-${i * 7919}`, iter));
  }
  const keys = await Promise.all(jobs);
  keys.forEach((key, i) => {
    const want = crypto.pbkdf2Sync(`password-${i}`, `salt-${i * 7919}`, iter, 32, 'sha256');
    if (!key.equals(want)) {
      fail(`pbkdf2 call ${i}: ${key.toString('hex')}, want ${want.toString('hex')}`);
    }
  });
  return `pbkdf2=${calls}`;
}

// FILES files written at once, then read back at once; each content names
// its file and is a different length
async function files(n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clof-uvpool-'));
  try {
    const content = (i) => `file ${i}\n` + 'x'.repeat((i * 37) % 4096) + `\nend ${i}\n`;
    const name = (i) => path.join(dir, `f${i}`);
    const ids = Array.from({ length: n }, (_, i) => i);
    await Promise.all(ids.map((i) => fs.promises.writeFile(name(i), content(i))));
    const back = await Promise.all(ids.map((i) => fs.promises.readFile(name(i), 'utf8')));
    back.forEach((got, i) => {
      if (got !== content(i)) {
        fail(`file ${i}: read ${got.length} bytes, want ${content(i).length}`);
      }
    });
    const listed = fs.readdirSync(dir).length;
    if (listed !== n) {
      fail(`files: ${listed} in the folder, want ${n}`);
    }
    await Promise.all(ids.map((i) => fs.promises.unlink(name(i))));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return `files=${n}`;
}

(async () => {
  const a = await kdfs(Math.ceil(256 * scale), 1000);
  const b = await files(Math.ceil(300 * scale));
  const c = await files(Math.ceil(300 * scale));
  console.log(`ok ${a} ${b} ${c} pool=${process.env.UV_THREADPOOL_SIZE}`);
})().catch((e) => fail(e && e.stack ? e.stack : String(e)));
