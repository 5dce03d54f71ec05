package netns

import (
	"encoding/binary"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/bpf"
	"golang.org/x/net/dns/dnsmessage"
)

// Escape is a try of a boxed process to reach the network past the
// proxy, seen by the box's catcher (see [Box.Catch]); it fails.
type Escape struct {
	// Proto is "dns" for a name looked up (Host is the name), "tcp" or
	// "udp" for a connection to an address (Host is address:port).
	Proto string
	Host  string
}

// answer is the catcher's answer to a DNS query: the same question with
// NXDOMAIN, so that the lookup fails at once. name is the name asked
// (printable, see printable); ok is false for what is no query (an
// answer, a message that does not parse): nothing is sent back.
func answer(query []byte) (resp []byte, name string, ok bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil || h.Response {
		return nil, "", false
	}
	q, err := p.Question()
	if err != nil {
		return nil, "", false
	}
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), dnsmessage.Header{
		ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired,
		RecursionAvailable: true, RCode: dnsmessage.RCodeNameError,
	})
	if err := b.StartQuestions(); err != nil {
		return nil, "", false
	}
	if err := b.Question(q); err != nil {
		return nil, "", false
	}
	resp, err = b.Finish()
	if err != nil {
		return nil, "", false
	}
	return resp, printable(q.Name.Data[:q.Name.Length]), true
}

// printable is a DNS name as the log shows it: lower case, without the
// final dot, every byte but letters, digits, '-', '_' and '.' as \DDD
// (the DNS's own escape), so that no name puts a line break or a
// workflow command into the log.
func printable(name []byte) string {
	var b strings.Builder
	for _, c := range name {
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteByte(c)
		default:
			b.WriteString(`\` + strconv.Itoa(int(c)/100) + strconv.Itoa(int(c)/10%10) + strconv.Itoa(int(c)%10))
		}
	}
	s := b.String()
	if len(s) > 1 {
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// connection reads what an IP packet the catcher saw on the box's
// loopback tries to reach: a TCP SYN or a UDP datagram to an address
// that is not the loopback's. ok is false for anything else (the box's
// own loopback traffic, DNS, which the catcher answers, other
// protocols, a packet too short).
func connection(pkt []byte) (e Escape, ok bool) {
	if len(pkt) < 1 {
		return Escape{}, false
	}
	var proto byte
	var dst netip.Addr
	var l4 []byte
	switch pkt[0] >> 4 {
	case 4:
		ihl := int(pkt[0]&0x0f) * 4
		if ihl < 20 || len(pkt) < ihl+4 {
			return Escape{}, false
		}
		proto, dst, l4 = pkt[9], netip.AddrFrom4([4]byte(pkt[16:20])), pkt[ihl:]
	case 6:
		if len(pkt) < 40+4 {
			return Escape{}, false
		}
		proto, dst, l4 = pkt[6], netip.AddrFrom16([16]byte(pkt[24:40])), pkt[40:]
	default:
		return Escape{}, false
	}
	dst = dst.Unmap()
	if dst.IsLoopback() || dst.IsMulticast() || dst.IsUnspecified() || dst == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return Escape{}, false
	}
	sport, dport := binary.BigEndian.Uint16(l4[0:2]), binary.BigEndian.Uint16(l4[2:4])
	switch proto {
	case 6:
		if len(l4) < 14 || l4[13]&0x12 != 0x02 { // SYN without ACK: a connect
			return Escape{}, false
		}
		e.Proto = "tcp"
	case 17:
		if sport == 53 || dport == 53 { // a lookup, or the catcher's answer to one
			return Escape{}, false
		}
		e.Proto = "udp"
	default:
		return Escape{}, false
	}
	e.Host = netip.AddrPortFrom(dst, dport).String()
	return e, true
}

// snap is how much of a packet the filter keeps: the IP header (IPv6's
// 40 bytes, IPv4's up to 60) and the TCP flags.
const snap = 60 + 14

// ipFilter is filter past the packet type, on a packet that starts with
// its IP header: it returns snap for what it keeps and 0 for the rest;
// its last instruction drops.
var ipFilter = []bpf.Instruction{
	/* 0 */ bpf.LoadAbsolute{Off: 0, Size: 1},
	/* 1 */ bpf.ALUOpConstant{Op: bpf.ALUOpShiftRight, Val: 4},
	/* 2 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: 6, SkipTrue: 8}, // → 11, IPv6
	/* 3 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 4, SkipTrue: 14}, // → 18, drop
	/* 4 */ bpf.LoadAbsolute{Off: 9, Size: 1},
	/* 5 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: 17, SkipTrue: 11}, // → 17, keep
	/* 6 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 6, SkipTrue: 11}, // → 18
	/* 7 */ bpf.LoadMemShift{Off: 0},
	/* 8 */ bpf.LoadIndirect{Off: 13, Size: 1},
	/* 9 */ bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0x12},
	/* 10 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x02, SkipTrue: 6, SkipFalse: 7}, // → 17 or 18
	/* 11 */ bpf.LoadAbsolute{Off: 6, Size: 1},
	/* 12 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: 17, SkipTrue: 4}, // → 17
	/* 13 */ bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 6, SkipTrue: 4}, // → 18
	/* 14 */ bpf.LoadAbsolute{Off: 40 + 13, Size: 1},
	/* 15 */ bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0x12},
	/* 16 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x02, SkipFalse: 1}, // → 17 or 18
	/* 17 */ bpf.RetConstant{Val: snap},
	/* 18 */ bpf.RetConstant{Val: 0},
}
