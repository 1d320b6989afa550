'use strict';

// Checking a binary before it is loaded (lib/binary.js loads it): a
// complete shared object for this process, ELF (Linux), PE32+ (Windows) or
// Mach-O (macOS), every table and segment inside the file.  A file is
// { size, read(at, n), name }: read gives the bytes [at, at + n), fewer
// where the file ends first.  Each check throws Declined with the reason;
// checkBinary turns that, and anything else thrown, into a reason string.

class Declined extends Error {}

function firstLine(err) {
  return err && err.message ? String(err.message).split('\n')[0] : String(err);
}

function decline(reason) {
  throw new Declined(reason);
}

// The bytes [at, at + n) of `file`, or declined as truncated there.
function need(file, at, n, what) {
  const end = within(file, at, n, what);
  const bytes = file.read(at, n);
  if (bytes.length < n) decline(`truncated: ${what} ends at ${end}, only ${at + bytes.length} bytes could be read`);
  return bytes;
}

// [at, at + n) lies inside `file` (a segment's or a section's contents,
// not read); its end.  An empty range has no bytes to lie outside: a
// segment or section without contents may say any offset.
function within(file, at, n, what) {
  const end = at + n;
  if (n === 0) return end;
  if (!Number.isSafeInteger(end)) decline(`malformed: ${what} lies past 2^53 bytes`);
  if (end > file.size) decline(`truncated: ${what} ends at ${end}, ${file.name} has ${file.size} bytes`);
  return end;
}

// A 64-bit unsigned integer as a Number, read as two 32-bit halves;
// declined above 2^53 (no file is that large).
function u64(bytes, at, bigEndian = false) {
  const high = bigEndian ? bytes.readUInt32BE(at) : bytes.readUInt32LE(at + 4);
  const low = bigEndian ? bytes.readUInt32BE(at + 4) : bytes.readUInt32LE(at);
  if (high >= 0x200000) decline('malformed: an offset or a size above 2^53');
  return high * 0x100000000 + low;
}

// The NUL-terminated string at `at` (a section or segment name), its
// unprintable bytes as '?': it goes into a one-line warning.
function cString(bytes, at, max = bytes.length - at) {
  const slice = bytes.subarray(at, at + Math.max(0, max));
  const nul = slice.indexOf(0);
  return slice.subarray(0, nul < 0 ? slice.length : nul).toString('latin1').replace(/[^\x20-\x7e]/g, '?');
}

// What the first bytes of a file are, for a reason that names it.
function formatOf(head) {
  if (head.length >= 4 && head.readUInt32BE(0) === 0x7f454c46) return 'an ELF file';
  if (head.length >= 2 && head.toString('latin1', 0, 2) === 'MZ') return 'a Windows PE file';
  if (head.length >= 4 && [0xfeedfacf, 0xfeedface].includes(head.readUInt32LE(0))) return 'a Mach-O file';
  if (head.length >= 4 && [0xcafebabe, 0xcafebabf].includes(head.readUInt32BE(0))) return 'a universal Mach-O file';
  return null;
}

function notA(head, wanted) {
  const found = formatOf(head);
  decline(found ? `${found}, not ${wanted}` : `not ${wanted}`);
}

function nameOf(table, value) {
  const found = Object.keys(table).find((k) => table[k] === value);
  return found !== undefined ? found : `machine 0x${value.toString(16)}`;
}

// ELF (Linux and the BSDs): the e_machine of each 64-bit little-endian CPU
// Node runs on.  On another CPU (arm, ia32, s390x: 32-bit or big-endian)
// no check is made, and the system's loader alone decides.
const ELF_MACHINES = { x64: 62, arm64: 183, ppc64: 21, riscv64: 243, loong64: 258 };
const ELF_NAMES = { ...ELF_MACHINES, arm: 40, ia32: 3, s390x: 22 };
const ELF_TYPES = { 1: 'an ELF object file (.o)', 2: 'an ELF executable', 4: 'an ELF core dump' };
const PT_NAMES = { 1: 'LOAD', 2: 'DYNAMIC', 3: 'INTERP', 4: 'NOTE', 6: 'PHDR', 7: 'TLS' };
const SHT_NOBITS = 8;

function checkElf(file, cpu) {
  const want = ELF_MACHINES[cpu];
  if (want === undefined) return;
  const head = file.read(0, Math.min(file.size, 64));
  if (formatOf(head) !== 'an ELF file') notA(head, 'an ELF shared object');
  const h = need(file, 0, 64, 'the ELF header');
  const elfClass = h[4] === 1 ? '32-bit' : `class ${h[4]}`;
  if (h[4] !== 2) decline(`a ${elfClass} ELF file, not 64-bit (ELFCLASS64) as this ${cpu} process`);
  if (h[5] !== 1) decline('a big-endian ELF file, not little-endian as this process');
  const type = h.readUInt16LE(16);
  if (type !== 3) decline(`${ELF_TYPES[type] || `an ELF file of type ${type}`}, not a shared object`);
  const machine = h.readUInt16LE(18);
  if (machine !== want) decline(`built for ${nameOf(ELF_NAMES, machine)}, this process is ${cpu}`);
  checkElfSegments(file, u64(h, 32), h.readUInt16LE(54), h.readUInt16LE(56));
  const shnum = h.readUInt16LE(60);
  if (shnum > 0) checkElfSections(file, u64(h, 40), h.readUInt16LE(58), shnum, h.readUInt16LE(62));
}

// Every program header's bytes: what the loader maps.
function checkElfSegments(file, at, size, count) {
  if (count === 0) decline('malformed: an ELF file without program headers');
  if (size < 56) decline(`malformed: ELF program headers of ${size} bytes`);
  const table = need(file, at, count * size, 'the program header table');
  for (let i = 0; i < count; i++) {
    const type = table.readUInt32LE(i * size);
    const name = PT_NAMES[type] || `type 0x${type.toString(16)}`;
    within(file, u64(table, i * size + 8), u64(table, i * size + 32), `segment ${i} (${name})`);
  }
}

// Every section that has bytes in the file, named from the section name
// table where that is in the file.
function checkElfSections(file, at, size, count, namesIndex) {
  if (size < 64) decline(`malformed: ELF section headers of ${size} bytes`);
  const table = need(file, at, count * size, 'the section header table');
  const range = (i) => [u64(table, i * size + 24), u64(table, i * size + 32)];
  let names = Buffer.alloc(0);
  if (namesIndex < count) {
    const [off, len] = range(namesIndex);
    if (off + len <= file.size) names = file.read(off, len);
  }
  for (let i = 0; i < count; i++) {
    if (table.readUInt32LE(i * size + 4) === SHT_NOBITS) continue;
    const nameAt = table.readUInt32LE(i * size);
    const name = nameAt < names.length ? cString(names, nameAt) : '';
    const [off, len] = range(i);
    within(file, off, len, `section ${name || `#${i}`}`);
  }
}

// PE32+ (Windows): a DLL whose headers and every section's raw data are
// in the file.
const PE_MACHINES = { x64: 0x8664, arm64: 0xaa64 };
const PE_NAMES = { ...PE_MACHINES, ia32: 0x14c };

function checkPe(file, cpu) {
  const want = PE_MACHINES[cpu];
  if (want === undefined) return;
  const head = file.read(0, Math.min(file.size, 64));
  if (formatOf(head) !== 'a Windows PE file') notA(head, 'a Windows DLL');
  const at = need(file, 0, 64, 'the DOS header').readUInt32LE(0x3c);
  const pe = need(file, at, 24, 'the PE header');
  if (pe.readUInt32BE(0) !== 0x50450000) decline('not a Windows DLL: an MZ file without a PE header');
  const machine = pe.readUInt16LE(4);
  if (machine !== want) decline(`built for ${nameOf(PE_NAMES, machine)}, this process is ${cpu}`);
  if ((pe.readUInt16LE(22) & 0x2000) === 0) decline('a Windows executable, not a DLL');
  const optionalSize = pe.readUInt16LE(20);
  const magic = optionalSize >= 2 ? need(file, at + 24, 2, 'the optional header').readUInt16LE(0) : 0;
  if (magic === 0x10b) decline('a 32-bit (PE32) DLL, not PE32+');
  if (magic !== 0x20b) decline(`malformed: optional header magic 0x${magic.toString(16)}, not PE32+ (0x20b)`);
  const count = pe.readUInt16LE(6);
  const table = need(file, at + 24 + optionalSize, count * 40, 'the section table');
  for (let i = 0; i < count; i++) {
    const name = cString(table, i * 40, 8) || `#${i}`;
    within(file, table.readUInt32LE(i * 40 + 20), table.readUInt32LE(i * 40 + 16), `section ${name}`);
  }
}

// Mach-O (macOS): a 64-bit bundle or dylib whose load commands and every
// LC_SEGMENT_64's bytes are in the file; in a universal (fat) file, those
// of the slice for this CPU.
const MACHO_CPUS = { x64: 0x01000007, arm64: 0x0100000c };
const LC_SEGMENT_64 = 0x19;

function checkMachO(file, cpu) {
  const want = MACHO_CPUS[cpu];
  if (want === undefined) return;
  const head = file.read(0, Math.min(file.size, 8));
  const found = formatOf(head);
  if (found === 'a universal Mach-O file') return checkMachOSlice(checkFat(file, cpu, want), cpu, want);
  if (found !== 'a Mach-O file') notA(head, 'a Mach-O bundle');
  return checkMachOSlice(file, cpu, want);
}

// The slice of a universal file for this CPU, as a file of its own.
// Its table is big-endian, with 32-bit offsets (FAT_MAGIC) or 64-bit ones
// (FAT_MAGIC_64).
function checkFat(file, cpu, want) {
  const h = need(file, 0, 8, 'the universal header');
  const wide = h.readUInt32BE(0) === 0xcafebabf;
  const size = wide ? 32 : 20;
  const count = h.readUInt32BE(4);
  const table = need(file, 8, count * size, 'the universal slice table');
  const cpus = [];
  for (let i = 0; i < count; i++) {
    const type = table.readUInt32BE(i * size);
    cpus.push(nameOf(MACHO_CPUS, type));
    if (type !== want) continue;
    const at = wide ? u64(table, i * size + 8, true) : table.readUInt32BE(i * size + 8);
    const length = wide ? u64(table, i * size + 16, true) : table.readUInt32BE(i * size + 12);
    within(file, at, length, `the ${cpu} slice`);
    return { size: length, name: `the ${cpu} slice`, read: (from, n) => file.read(at + from, n) };
  }
  return decline(`a universal Mach-O file without ${cpu}: it holds ${cpus.join(', ') || 'nothing'}`);
}

function checkMachOSlice(file, cpu, want) {
  const h = need(file, 0, 32, 'the Mach-O header');
  const magic = h.readUInt32LE(0);
  if (magic === 0xfeedface) decline(`a 32-bit Mach-O file, not 64-bit as this ${cpu} process`);
  if (magic !== 0xfeedfacf) decline('not a 64-bit Mach-O file');
  const type = h.readUInt32LE(4);
  if (type !== want) decline(`built for ${nameOf(MACHO_CPUS, type)}, this process is ${cpu}`);
  const filetype = h.readUInt32LE(12);
  if (filetype !== 8 && filetype !== 6) decline(`a Mach-O file of type ${filetype}, not a bundle or a dylib`);
  const count = h.readUInt32LE(16);
  const size = h.readUInt32LE(20);
  const cmds = need(file, 32, size, 'the load command table');
  let at = 0;
  for (let i = 0; i < count; i++) {
    const cmdSize = at + 8 <= size ? cmds.readUInt32LE(at + 4) : 0;
    if (cmdSize < 8 || at + cmdSize > size) decline(`malformed: load command ${i} lies outside the load commands`);
    if (cmds.readUInt32LE(at) === LC_SEGMENT_64) {
      if (cmdSize < 72) decline(`malformed: load command ${i} is a short LC_SEGMENT_64`);
      within(file, u64(cmds, at + 40), u64(cmds, at + 48), `segment ${cString(cmds, at + 8, 16) || `#${i}`}`);
    }
    at += cmdSize;
  }
}

// The check of each system's binaries: ELF where none is named; none on
// AIX (XCOFF), where the system's loader alone decides.
const CHECKS = { darwin: checkMachO, win32: checkPe, cygwin: checkPe, aix: null, os400: null };

// Why `file` is not a complete shared object for `os` and `cpu`, or null.
function checkBinary(file, { os, cpu }) {
  try {
    if (file.size === 0) return 'an empty file';
    const check = os in CHECKS ? CHECKS[os] : checkElf;
    if (check !== null) check(file, cpu);
    return null;
  } catch (err) {
    return err instanceof Declined ? err.message : `could not be read: ${firstLine(err)}`;
  }
}

// A Buffer as a file for the checks.
function inMemory(bytes, name = 'the file') {
  return { size: bytes.length, name, read: (at, n) => bytes.subarray(at, at + n) };
}

module.exports = { checkBinary, checkElf, checkPe, checkMachO, inMemory, Declined };
