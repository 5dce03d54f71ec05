package netns

import (
	"encoding/hex"
	"net/netip"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/net/dns/dnsmessage"
)

// The catcher parses what a boxed process sends: the agent chooses every
// byte of it. These fuzz targets hold the parsers to never panic, to
// answer and log within fixed bounds whatever the input's size, and to
// put nothing but the DNS's own escapes into the log. .ci/run fuzzes
// each for a few seconds.

// realQueries are DNS queries as glibc's resolver sent them (getent
// ahosts registry.npmjs.org, in a network namespace whose resolv.conf
// names 10.255.255.53), captured on the loopback.
var realQueries = []string{
	"087401000001000000000000087265676973747279056e706d6a73036f726700001c0001",
	"257601000001000000000000087265676973747279056e706d6a73036f72670000010001",
}

// realPackets are packets as a packet socket on a box's loopback read
// them (SOCK_DGRAM: the IP header first), cut to snap, captured while
// processes connected past the proxy in a network namespace routing
// every address to its loopback, as the catcher's does.
var realPackets = []string{
	// UDP 198.51.100.9:59677 → :5353
	"4500001db6ca400040112f8cc6336409c6336409e91d14e90009549478",
	// the RST answering a SYN to 203.0.113.7:4444
	"45000028000040004006c2c0cb007107cb007107115c8b82000000000ac5a57950140000eaa30000",
	// TCP SYN to 203.0.113.7:4444, with options
	"4500003c6cd34000400655d9cb007107cb0071078b82115c0ac5a57800000000a002ffd7783e00000204ffd70402080a35d1b282000000000103030a",
	// the two lookups above, in UDP to 10.255.255.53:53
	"450000402a5040004011fbf30affff350affff3582610035002c14a7257601000001000000000000087265676973747279056e706d6a73036f72670000010001",
	"450000402a5140004011fbf20affff350affff3582610035002c14a7087401000001000000000000087265676973747279056e706d6a73036f726700001c0001",
	// ICMP port unreachable for the UDP datagram
	"45c00039da5d000040014b2dc6336409c633640903033258000000004500001db6ca400040112f8cc6336409c6336409e91d14e90009549478",
	// IPv6: the RST to a SYN, the SYN to [2001:db8::7]:4445, an ICMPv6 unreachable, UDP to [2001:db8::9]:5353
	"600536bb0014064020010db800000000000000000000000700000000000000000000000000000001115de82800000000a05d7cbd501400002ddb0000",
	"600556a5002806400000000000000000000000000000000120010db8000000000000000000000007e828115da05d7cbc00000000a002ffc42def00000204ffc40402080a3d69da0c0000",
	"6006dbf300393a40000000000000000000000000000000010000000000000000000000000000000101040bcd00000000600efcf000091140000000000000000000000000000000012001",
	"600efcf0000911400000000000000000000000000000000120010db80000000000000000000000099ade14e900092ddd79",
}

// maxAnswer bounds an answer whatever the query: a header, one question
// (a name of at most 255 bytes, its type and class), nothing else.
const maxAnswer = 12 + 255 + 4

// FuzzAnswer: a query of any bytes gets no answer or one answer of at
// most maxAnswer bytes that parses back as NXDOMAIN for the same ID and
// question, and the name logged holds only what printable lets through.
func FuzzAnswer(f *testing.F) {
	for _, h := range realQueries {
		q, _ := hex.DecodeString(h)
		f.Add(q)
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 7, RecursionDesired: true})
	_ = b.StartQuestions()
	_ = b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName("a\n::error ::x."), Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET})
	q, _ := b.Finish()
	f.Add(q)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, query []byte) {
		resp, name, ok := answer(query)
		if !ok {
			if resp != nil || name != "" {
				t.Fatalf("no answer, yet %x %q", resp, name)
			}
			return
		}
		if len(resp) > maxAnswer {
			t.Fatalf("an answer of %d bytes (at most %d): %x", len(resp), maxAnswer, resp)
		}
		if len(name) > 4*255 {
			t.Fatalf("a name of %d bytes logged", len(name))
		}
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '\\') {
				t.Fatalf("the name logged holds %q: %q", c, name)
			}
		}
		var qp, rp dnsmessage.Parser
		qh, err := qp.Start(query)
		if err != nil {
			t.Fatal(err)
		}
		qq, err := qp.Question()
		if err != nil {
			t.Fatal(err)
		}
		rh, err := rp.Start(resp)
		if err != nil {
			t.Fatalf("the answer does not parse: %v", err)
		}
		if !rh.Response || rh.ID != qh.ID || rh.RCode != dnsmessage.RCodeNameError {
			t.Fatalf("answer header %+v to %+v", rh, qh)
		}
		rq, err := rp.Question()
		if err != nil || rq != qq {
			t.Fatalf("answer's question %v %v, asked %v", rq, err, qq)
		}
		if _, err := rp.Question(); err != dnsmessage.ErrSectionDone {
			t.Fatalf("more than one question answered: %v", err)
		}
	})
}

// FuzzConnection: a packet of any bytes reads as nothing or as one TCP
// or UDP address:port off the loopback; what the reader sees (the packet
// cut to snap) reads the same; and the kernel's filter, run here in its
// virtual machine, keeps every packet that reads as a connection (or the
// catcher would never see it).
func FuzzConnection(f *testing.F) {
	for _, h := range realPackets {
		p, _ := hex.DecodeString(h)
		f.Add(p)
	}
	for _, h := range packets {
		p, _ := hex.DecodeString(h)
		f.Add(p)
	}
	vm, err := bpf.NewVM(ipFilter)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		e, ok := connection(pkt)
		if !ok {
			if e != (Escape{}) {
				t.Fatalf("no connection, yet %v", e)
			}
			return
		}
		if e.Proto != "tcp" && e.Proto != "udp" {
			t.Fatalf("proto %q", e.Proto)
		}
		ap, err := netip.ParseAddrPort(e.Host)
		if err != nil || ap.Addr().IsLoopback() || ap.Addr().IsUnspecified() || ap.Addr().Is4In6() {
			t.Fatalf("host %q (%v)", e.Host, err)
		}
		seen := pkt[:min(len(pkt), snap)]
		if cut, ok := connection(seen); !ok || cut != e {
			t.Fatalf("cut to %d bytes it reads %v %v, whole %v", snap, cut, ok, e)
		}
		n, err := vm.Run(pkt)
		if err != nil || n != snap {
			t.Fatalf("the kernel's filter drops %v (%d, %v)", e, n, err)
		}
	})
}
