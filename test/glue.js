'use strict';

// The Node-API glue (csrc/binding.c) on its own: it declines, it never
// throws, aborts or truncates.  Whatever it is given - arguments of the
// wrong type or number, lengths that do not match the text, characters
// that would lose bits as latin1 - it answers undefined and says why in
// the result slot, so that Node's own code runs.  Its shared memory cannot
// be reached or detached from outside.

const t = require('tap');
const native = require('../lib/native');
const S = require('../lib/slots');

const { binding, ints, nums, lens } = native;
const reason = () => S.RESULTS[ints[S.S_RESULT]];

// A head request as lib/head.js makes one: a reason phrase and pairs, as
// one text and its parts' lengths.  `text` and `lengths` replace what a
// correct caller would pass.
function render(parts, { text = parts.join(''), lengths = parts.map((p) => p.length),
  st = S.VALIDATE | S.HAS_BODY | S.CHUNKED_DEFAULT } = {}) {
  ints[S.S_STATE] = st;
  ints[S.S_STATUS] = 200;
  ints[S.S_NPARTS] = lengths.length;
  ints[S.S_TEXT_LEN] = lengths.reduce((n, l) => n + l, 0);
  ints[S.S_LINE_MODE] = 1;
  ints[S.S_BODY_KIND] = S.BODY_NONE;
  ints[S.S_WANT_ROLES] = 0;
  lengths.forEach((l, i) => { lens[i] = l; });
  return binding.head(text);
}

t.test('the layout JS and C share agrees', async (t) => {
  t.equal(S.LENGTHS_OFFSET + 4 * (1 + 2 * S.MAX_PAIRS),
    require(native.file).sharedBytes);
  t.ok(S.INT_SLOTS * 4 <= S.DOUBLES_OFFSET && S.DOUBLES_OFFSET + S.DOUBLE_SLOTS * 8 <= S.ROLES_OFFSET);
  t.equal(S.ROLES_OFFSET + S.MAX_ROLES, S.LENGTHS_OFFSET);
});

t.test('a head renders; the roles and the Content-Length come back', async (t) => {
  ints[S.S_WANT_ROLES] = 1;
  const h = render(['OK', 'Content-Type', 'text/plain', 'Content-Length', '42', 'Connection', 'close']);
  t.equal(h, 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 42\r\n' +
    'Connection: close\r\n\r\n');
  t.equal(ints[S.S_CL_PAIR], 1);
  t.equal(ints[S.S_CL_SIMPLE], 1);
  t.equal(nums[S.D_USER_CL], 42);
});

t.test('the memory JS and C share cannot be reached or detached from outside', async (t) => {
  // The same exports a user gets by loading the binary: no way to the memory.
  const raw = require(native.file);
  t.equal(raw.attach, undefined, 'attach() is gone once used');
  t.notOk(Object.values(raw).some((v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v)),
    'no buffer among the exports');
  // The memory lib/native.js holds is a SharedArrayBuffer, which cannot be detached.
  t.ok(ints.buffer instanceof SharedArrayBuffer);
  t.throws(() => structuredClone(ints.buffer, { transfer: [ints.buffer] }));
  t.equal(ints.length, S.INT_SLOTS, 'still attached');
});

t.test('arguments of the wrong kind are declined, not thrown', async (t) => {
  for (const bad of [1, null, {}, Symbol('s'), ['OK']]) {
    let out;
    t.doesNotThrow(() => {
      out = render(['OK'], { text: bad });
    }, `head(${typeof bad})`);
    t.equal(out, undefined);
  }
  t.equal(render(['OK', 'n']), undefined, 'an even number of parts');
  t.equal(binding.head(), undefined);
  t.equal(binding.head('OK', 'more', 'args'), undefined);
  t.equal(binding.join(), undefined);
  t.equal(binding.join('head', 'not bytes'), undefined);
  t.equal(binding.chunk(42), undefined);
  t.equal(binding.setDate({}), undefined);
  t.equal(binding.setKeepAlive(), undefined);
});

// The glue reads a text of fewer than 512 code units as UTF-16 and a longer
// one as bytes (csrc/binding.c, read_text): every check below is made on a
// short text and on one padded past that.
const LONG = 'y'.repeat(600);
const SIZES = [['a short text', ''], ['a long text', LONG]];

for (const [size, pad] of SIZES) {
  t.test(`${size}: longer than the lengths told is seen, not cut`, async (t) => {
    const value = `a value${pad}`;
    const parts = ['OK', 'X-A', value];
    t.equal(render(parts),
      `HTTP/1.1 200 OK\r\nX-A: ${value}\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n`);
    // Lengths adding up to less than the text: the glue must not render a
    // head cut short (say 'X-A: a va') or split elsewhere.
    t.equal(render(parts, { lengths: [2, 3, value.length - 3] }), undefined);
    t.equal(reason(), 'head shape');
    t.equal(render(parts, { lengths: [2, 3, value.length - 1] }), undefined, 'one unit less');
    t.equal(reason(), 'head shape');
    t.equal(render(parts, { lengths: [2, 3, value.length + 3] }), undefined, 'more than the text');
    t.equal(render(parts, { lengths: [2, -1, value.length + 1] }), undefined, 'a negative length');
    // The same sum cut elsewhere is no head either: 'OKX-A' / 'a v' / 'alue'
    // (a name with a space) is refused by the builder's own checks.
    t.equal(render(parts, { lengths: [5, 3, value.length - 3] }), undefined, 'the same sum, other cuts');
  });

  t.test(`${size}: characters beyond ASCII are declined, whatever their low byte`, async (t) => {
    // U+0141 would be 0x41 ('A') as latin1; U+0100 would be NUL.
    for (const ch of ['\u0141', '\u0100', '\u00e9', '\ud83d\ude00', '\ud800', '\udc00\ud800']) {
      t.equal(render(['OK', 'X-A', `v${pad}${ch}`]), undefined, JSON.stringify(ch));
      t.equal(reason(), 'non-ascii head');
      t.equal(render(['OK', 'X-A', `${ch}v${pad}`]), undefined, `${JSON.stringify(ch)} first`);
      t.equal(reason(), 'non-ascii head');
      t.equal(render([`O${ch}K${pad}`]), undefined);
      // Told one unit less, with the character last, beyond what was told;
      // and told the text's UTF-8 length, which is more than its own.
      const text = `v${pad}${ch}`;
      t.equal(render(['OK', 'X-A', text], { lengths: [2, 3, text.length - 1] }), undefined, 'past the lengths');
      t.equal(render(['OK', 'X-A', text], { lengths: [2, 3, Buffer.byteLength(text)] }), undefined,
        'told its UTF-8 length');
    }
  });
}

t.test('join() sees a head longer than told and a detached body', async (t) => {
  ints[S.S_TEXT_LEN] = 3;
  ints[S.S_BODY_KIND] = S.BODY_BYTES;
  ints[S.S_FRAME] = 0;
  t.equal(binding.join('HEAD', Buffer.from('x')), undefined, 'a head of 4 where 3 was told');
  t.equal(reason(), 'head shape');
  ints[S.S_TEXT_LEN] = 4;
  t.equal(binding.join('HEAD', Buffer.from('x')), 'HEADx');
  const u8 = new Uint8Array(4).fill(0x41);
  structuredClone(u8.buffer, { transfer: [u8.buffer] });
  t.equal(binding.join('HEAD', u8), 'HEAD', 'a detached body has no bytes left to copy');
  ints[S.S_BODY_KIND] = S.BODY_BYTES;
  t.equal(binding.chunk(u8), undefined, 'and no chunk to frame');
});

t.test('a one-byte body string longer than told is seen', async (t) => {
  ints[S.S_BODY_KIND] = S.BODY_ONE_BYTE;
  nums[S.D_BODY_LEN] = 2;
  ints[S.S_STATE] = S.HAS_BODY | S.CHUNKED_DEFAULT;
  ints[S.S_STATUS] = 200;
  ints[S.S_NPARTS] = 1;
  ints[S.S_TEXT_LEN] = 2;
  ints[S.S_LINE_MODE] = 1;
  t.equal(binding.message('body', 'OK'), undefined);
  t.equal(reason(), 'head shape');
});
