'use strict';

// Small shared objects built byte by byte, for the checks lib/binary.js
// makes before loading a binary: an ELF shared object, a Windows PE32+
// DLL and a Mach-O bundle (thin, or universal), each a few hundred bytes
// of headers with every field the checks read, and contents where the
// headers say.  Nothing here is loadable: the tests only check them.

// Little-endian writes at fixed offsets, into a zeroed buffer.
function put(buf, at, bytes, value) {
  if (bytes === 8) buf.writeBigUInt64LE(BigInt(value), at);
  else if (bytes === 4) buf.writeUInt32LE(value >>> 0, at);
  else buf.writeUInt16LE(value, at);
}

const ELF = { x64: 62, arm64: 183 };

// An ELF64 little-endian shared object: the header, one PT_LOAD program
// header covering the whole file, no section headers.  120 bytes.
function elf({ machine = ELF.x64, type = 3 } = {}) {
  const b = Buffer.alloc(120);
  b.write('\x7fELF', 0, 'latin1');
  b[4] = 2; // ELFCLASS64
  b[5] = 1; // little-endian
  b[6] = 1; // EV_CURRENT
  put(b, 16, 2, type);
  put(b, 18, 2, machine);
  put(b, 20, 4, 1);
  put(b, 32, 8, 64); // e_phoff
  put(b, 52, 2, 64); // e_ehsize
  put(b, 54, 2, 56); // e_phentsize
  put(b, 56, 2, 1); // e_phnum
  put(b, 64, 4, 1); // PT_LOAD
  put(b, 64 + 8, 8, 0); // p_offset
  put(b, 64 + 32, 8, b.length); // p_filesz
  put(b, 64 + 40, 8, b.length); // p_memsz
  return b;
}

const PE = { x64: 0x8664, arm64: 0xaa64, ia32: 0x14c };

// A PE32+ DLL: DOS header, "PE\0\0", the COFF header, a 240-byte optional
// header, and a .text and a .data section of 64 raw bytes each.
function pe({ machine = PE.x64, dll = true, magic = 0x20b } = {}) {
  const sections = [['.text', 64], ['.data', 64]];
  const lfanew = 64;
  const optional = 240;
  const table = lfanew + 24 + optional;
  let raw = table + sections.length * 40;
  const b = Buffer.alloc(raw + sections.reduce((n, [, size]) => n + size, 0));
  b.write('MZ', 0, 'latin1');
  put(b, 0x3c, 4, lfanew);
  b.write('PE\0\0', lfanew, 'latin1');
  put(b, lfanew + 4, 2, machine);
  put(b, lfanew + 6, 2, sections.length);
  put(b, lfanew + 20, 2, optional);
  put(b, lfanew + 22, 2, 0x0022 | (dll ? 0x2000 : 0)); // executable image, large address aware
  put(b, lfanew + 24, 2, magic);
  sections.forEach(([name, size], i) => {
    const at = table + i * 40;
    b.write(name, at, 'latin1');
    put(b, at + 8, 4, size); // VirtualSize
    put(b, at + 12, 4, 0x1000 * (i + 1)); // VirtualAddress
    put(b, at + 16, 4, size); // SizeOfRawData
    put(b, at + 20, 4, raw); // PointerToRawData
    b.fill(0xcc, raw, raw + size);
    raw += size;
  });
  return b;
}

const MACHO = { x64: 0x01000007, arm64: 0x0100000c };

// A 64-bit Mach-O bundle: the header, an LC_SEGMENT_64 for __TEXT (the
// headers and 128 bytes after them), an LC_UUID, and an LC_SEGMENT_64 for
// __LINKEDIT (64 bytes at the end).
function macho({ cpu = MACHO.arm64, filetype = 8, magic = 0xfeedfacf } = {}) {
  const commands = 72 + 24 + 72;
  const text = 32 + commands + 128;
  const b = Buffer.alloc(text + 64);
  put(b, 0, 4, magic);
  put(b, 4, 4, cpu);
  put(b, 12, 4, filetype);
  put(b, 16, 4, 3); // ncmds
  put(b, 20, 4, commands);
  const segment = (at, name, fileoff, filesize) => {
    put(b, at, 4, 0x19);
    put(b, at + 4, 4, 72);
    b.write(name, at + 8, 'latin1');
    put(b, at + 32, 8, filesize); // vmsize
    put(b, at + 40, 8, fileoff);
    put(b, at + 48, 8, filesize);
  };
  segment(32, '__TEXT', 0, text);
  put(b, 32 + 72, 4, 0x1b); // LC_UUID
  put(b, 32 + 72 + 4, 4, 24);
  segment(32 + 72 + 24, '__LINKEDIT', text, 64);
  return b;
}

// A universal file of `slices` ([cputype, bytes] each): a big-endian
// table with 32-bit offsets, or 64-bit ones (`wide`), slices 16-aligned.
function fat(slices, { wide = false } = {}) {
  const entry = wide ? 32 : 20;
  const align = (n) => Math.ceil(n / 16) * 16;
  let at = align(8 + slices.length * entry);
  const head = Buffer.alloc(at);
  head.writeUInt32BE(wide ? 0xcafebabf : 0xcafebabe, 0);
  head.writeUInt32BE(slices.length, 4);
  const parts = [head];
  slices.forEach(([cpu, bytes], i) => {
    const e = 8 + i * entry;
    head.writeUInt32BE(cpu, e);
    if (wide) {
      head.writeBigUInt64BE(BigInt(at), e + 8);
      head.writeBigUInt64BE(BigInt(bytes.length), e + 16);
    } else {
      head.writeUInt32BE(at, e + 8);
      head.writeUInt32BE(bytes.length, e + 12);
    }
    const padded = Buffer.alloc(align(bytes.length));
    bytes.copy(padded);
    parts.push(padded);
    at += padded.length;
  });
  return Buffer.concat(parts);
}

module.exports = { ELF, PE, MACHO, elf, pe, macho, fat };
