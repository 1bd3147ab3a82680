package bashdiff

import (
	"encoding/binary"
	"runtime"
)

// tinyShim returns a minimal static ELF executable for the running
// architecture that only calls exit(0), or nil when it has none for it (the
// Go shim is built instead). It starts in a fraction of the time a Go
// program needs (no runtime, no threads to trace), which matters when
// thousands of commands each run several shims under strace.
func tinyShim() []byte {
	var machine uint16
	var code []byte
	switch runtime.GOARCH {
	case "amd64":
		machine = 0x3e
		code = []byte{0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05} // mov eax,60; xor edi,edi; syscall
	case "arm64":
		machine = 0xb7
		code = []byte{0xa8, 0x0b, 0x80, 0xd2, 0x00, 0x00, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4} // mov x8,#93; mov x0,#0; svc #0
	default:
		return nil
	}
	const base = 0x400000
	const hdr = 64 + 56
	b := make([]byte, hdr+len(code))
	le := binary.LittleEndian
	copy(b, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0})
	le.PutUint16(b[16:], 2) // ET_EXEC
	le.PutUint16(b[18:], machine)
	le.PutUint32(b[20:], 1)
	le.PutUint64(b[24:], base+hdr) // entry
	le.PutUint64(b[32:], 64)       // program headers
	le.PutUint16(b[52:], 64)
	le.PutUint16(b[54:], 56)
	le.PutUint16(b[56:], 1)
	ph := b[64:]
	le.PutUint32(ph[0:], 1) // PT_LOAD
	le.PutUint32(ph[4:], 5) // R+X
	le.PutUint64(ph[16:], base)
	le.PutUint64(ph[24:], base)
	le.PutUint64(ph[32:], uint64(len(b)))
	le.PutUint64(ph[40:], uint64(len(b)))
	le.PutUint64(ph[48:], 0x1000)
	copy(b[hdr:], code)
	return b
}
