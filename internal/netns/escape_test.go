package netns

import (
	"encoding/hex"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/net/dns/dnsmessage"
)

// A query gets its question back with NXDOMAIN, and the name asked as
// the log shows it; what is no query gets nothing.
func TestAnswer(t *testing.T) {
	name := dnsmessage.MustNewName("Blocked.Example.TEST.")
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 0x4242, RecursionDesired: true})
	b.StartQuestions()
	b.Question(dnsmessage.Question{Name: name, Type: dnsmessage.TypeAAAA, Class: dnsmessage.ClassINET})
	query, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	resp, got, ok := answer(query)
	if !ok || got != "blocked.example.test" {
		t.Fatalf("answer: %q %v", got, ok)
	}
	var p dnsmessage.Parser
	h, err := p.Start(resp)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Response || h.ID != 0x4242 || h.RCode != dnsmessage.RCodeNameError || !h.RecursionDesired {
		t.Errorf("header %+v", h)
	}
	if q, err := p.Question(); err != nil || q.Name != name || q.Type != dnsmessage.TypeAAAA {
		t.Errorf("question %v %v", q, err)
	}
	if _, _, ok := answer(resp); ok {
		t.Error("an answer was answered")
	}
	for _, junk := range [][]byte{nil, {1, 2, 3}, query[:14]} {
		if _, _, ok := answer(junk); ok {
			t.Errorf("%x was answered", junk)
		}
	}
}

// A name asked never puts a line break or a workflow command into the log.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"Registry.NPMjs.org.":     "registry.npmjs.org",
		".":                       ".",
		"a\n::error ::x.example.": `a\010\058\058error\032\058\058x.example`,
		"_srv._tcp.x-y.example":   "_srv._tcp.x-y.example",
		"\xff\x00":                `\255\000`,
	} {
		if got := printable([]byte(in)); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// packets, as the box's loopback carries them (IP header first).
var packets = map[string]string{
	// 10.0.0.2:40000 → 203.0.113.7:4444, TCP SYN
	"syn4": "45000034000040004006000a0a000002cb00710709c4115c00000000000000008002ffff00000000",
	// the same with SYN|ACK
	"synack4": "45000034000040004006000a0a000002cb00710709c4115c00000000000000008012ffff00000000",
	// 127.0.0.1 → 127.0.0.1:8080, TCP SYN
	"loopsyn4": "450000340000400040060000" + "7f000001" + "7f000001" + "9c401f9000000000000000008002ffff00000000",
	// → 198.51.100.9:5353, UDP
	"udp4": "450000200000400040110000" + "0a000002" + "c6336409" + "9c4014e9000c0000",
	// → 10.255.255.53:53, UDP (a lookup)
	"dns4": "450000200000400040110000" + "0a000002" + "0affff35" + "9c400035000c0000",
	// [2001:db8::7]:4445, TCP SYN
	"syn6": "6000000000140640" + "00000000000000000000000000000001" + "20010db8000000000000000000000007" + "9c40115d00000000000000005002ffff00000000",
	// IPv4 ICMP
	"icmp4": "450000200000400040010000" + "0a000002" + "c6336409" + "0800000000000000",
}

// connection reads a SYN or a UDP datagram past the loopback, and
// nothing else; the kernel's filter keeps the same packets, and drops
// the rest before they reach ralph-ci.
func TestConnection(t *testing.T) {
	want := map[string]Escape{
		"syn4": {"tcp", "203.0.113.7:4444"},
		"udp4": {"udp", "198.51.100.9:5353"},
		"syn6": {"tcp", "[2001:db8::7]:4445"},
	}
	kept := map[string]bool{"syn4": true, "udp4": true, "syn6": true, "loopsyn4": true, "dns4": true}
	vm, err := bpf.NewVM(ipFilter)
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range packets {
		pkt, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(name, err)
		}
		e, ok := connection(pkt)
		if w, wok := want[name]; ok != wok || e != w {
			t.Errorf("%s: connection = %v %v, want %v %v", name, e, ok, w, wok)
		}
		n, err := vm.Run(pkt)
		if err != nil {
			t.Fatal(name, err)
		}
		if (n == snap) != kept[name] || (n != snap && n != 0) {
			t.Errorf("%s: the filter returned %d, want kept %v", name, n, kept[name])
		}
	}
	for _, short := range []string{"", "45", "4500003400004000400600", "60"} {
		pkt, _ := hex.DecodeString(short)
		if _, ok := connection(pkt); ok {
			t.Errorf("%q read as a connection", short)
		}
	}
}
