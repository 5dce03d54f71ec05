package netns

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
	"golang.org/x/sys/unix"
)

// catcher is what Catch started in the box: the DNS answerer on port 53
// and the packet socket on the loopback, served until close.
type catcher struct {
	// stops end the goroutines' reads; closers then close what they read.
	stops, closers []func() error
	wg             sync.WaitGroup
}

// close ends the catcher: the packet socket's goroutine first tells what
// its queue still holds (a connection that failed before Close was
// queued there before its process saw the failure), then its sockets
// close.
func (c *catcher) close() {
	if c == nil {
		return
	}
	for _, f := range c.stops {
		_ = f()
	}
	c.wg.Wait()
	for _, f := range c.closers {
		_ = f()
	}
}

// Catch makes what a boxed process sends past the proxy fail fast and
// tells each try to tell (from goroutines of its own, until Close):
//
//   - every address but the loopback's is routed to the box's loopback
//     (a "local" route, as AnyIP does), so a TCP connect anywhere gets a
//     reset at once and a UDP datagram a port-unreachable, instead of
//     "network unreachable" with nothing to see;
//   - a DNS answerer on port 53 of every address (so whatever nameserver
//     resolv.conf names) answers each query NXDOMAIN and tells the name
//     asked;
//   - a packet socket on the loopback, filtered in the kernel to TCP SYNs
//     and UDP datagrams, tells each address:port tried.
//
// tell may be called often (a flood of lookups): it dedups and bounds
// what it logs. IPv6 is caught where the box has it.
func (b *Box) Catch(tell func(Escape)) error {
	if b == nil || b.catch != nil {
		return errors.New("catching escapes: no box, or caught already")
	}
	c := &catcher{}
	var err error
	if !b.do(func() { err = c.start(tell) }) {
		err = errors.New("the network box is closed")
	}
	if err != nil {
		c.close()
		return fmt.Errorf("catching what escapes the proxy in the network box: %w", err)
	}
	b.catch = c
	return nil
}

// start runs on the box's thread: the routes, and the sockets (a
// socket belongs to the namespace it was made in, and is then served
// from any goroutine).
func (c *catcher) start(tell func(Escape)) error {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return err
	}
	if err := addLocalRoute(unix.AF_INET, lo.Index); err != nil {
		return fmt.Errorf("routing every IPv4 address to the loopback: %w", err)
	}
	v6 := addLocalRoute(unix.AF_INET6, lo.Index) == nil // no IPv6 in the box: nothing to catch there
	if err := c.serveDNS("udp4", "0.0.0.0:53", tell); err != nil {
		return err
	}
	if v6 {
		if err := c.serveDNS("udp6", "[::]:53", tell); err != nil {
			return err
		}
	}
	return c.watchPackets(lo.Index, tell)
}

// serveDNS answers every query on addr (port 53 of every address, as
// the local route makes them the box's), from the address it was sent
// to, as a resolver that connected its socket expects.
func (c *catcher) serveDNS(network, addr string, tell func(Escape)) error {
	conn, err := net.ListenPacket(network, addr)
	if err != nil {
		return fmt.Errorf("DNS answerer: %w", err)
	}
	c.stops = append(c.stops, conn.Close)
	var read func([]byte) (int, net.IP, net.Addr, error)
	var write func([]byte, net.IP, net.Addr) error
	if network == "udp4" {
		p := ipv4.NewPacketConn(conn)
		if err := p.SetControlMessage(ipv4.FlagDst, true); err != nil {
			return fmt.Errorf("DNS answerer: %w", err)
		}
		read = func(buf []byte) (int, net.IP, net.Addr, error) {
			n, cm, src, err := p.ReadFrom(buf)
			if cm == nil {
				return n, nil, src, err
			}
			return n, cm.Dst, src, err
		}
		write = func(b []byte, from net.IP, to net.Addr) error {
			_, err := p.WriteTo(b, &ipv4.ControlMessage{Src: from}, to)
			return err
		}
	} else {
		p := ipv6.NewPacketConn(conn)
		if err := p.SetControlMessage(ipv6.FlagDst, true); err != nil {
			return fmt.Errorf("DNS answerer: %w", err)
		}
		read = func(buf []byte) (int, net.IP, net.Addr, error) {
			n, cm, src, err := p.ReadFrom(buf)
			if cm == nil {
				return n, nil, src, err
			}
			return n, cm.Dst, src, err
		}
		write = func(b []byte, from net.IP, to net.Addr) error {
			_, err := p.WriteTo(b, &ipv6.ControlMessage{Src: from}, to)
			return err
		}
	}
	c.wg.Go(func() {
		buf := make([]byte, 4096)
		for {
			n, dst, src, err := read(buf)
			if err != nil { // closed; or an error that could repeat: never spin on it
				return
			}
			resp, name, ok := answer(buf[:n])
			if !ok {
				continue
			}
			tell(Escape{Proto: "dns", Host: name})
			_ = write(resp, dst, src)
		}
	})
	return nil
}

// filter keeps what connection reads, of the packets the loopback
// receives (not their outgoing copies): IPv4 and IPv6 TCP SYNs without
// ACK, and UDP; the rest never leaves the kernel (the proxy's traffic,
// a test's own server's).
var filter = append([]bpf.Instruction{
	bpf.LoadExtension{Num: bpf.ExtType},
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.PACKET_HOST, SkipFalse: uint8(len(ipFilter) - 1)}, // → its last: drop
}, ipFilter...)

// watchPackets opens a packet socket on the loopback (ifindex) with
// filter attached before it binds, so it never sees a packet the filter
// has not judged, and tells each connection read from what it keeps.
func (c *catcher) watchPackets(ifindex int, tell func(Escape)) error {
	raw, err := bpf.Assemble(filter)
	if err != nil {
		return err
	}
	prog := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		prog[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("packet socket: %w", err)
	}
	f := os.NewFile(uintptr(fd), "loopback packets")
	c.closers = append(c.closers, f.Close)
	c.stops = append(c.stops, func() error { return f.SetReadDeadline(time.Now()) })
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}); err != nil {
		return fmt.Errorf("packet socket's filter: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifindex}); err != nil {
		return fmt.Errorf("packet socket: %w", err)
	}
	c.wg.Go(func() {
		buf := make([]byte, snap)
		for {
			n, err := f.Read(buf)
			if errors.Is(err, os.ErrDeadlineExceeded) { // closing: the rest of the queue
				for {
					n, _, err := unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT)
					if err != nil {
						return
					}
					if e, ok := connection(buf[:n]); ok {
						tell(e)
					}
				}
			}
			if err != nil { // closed; or an error that could repeat (the loopback set down): never spin on it
				return
			}
			if e, ok := connection(buf[:n]); ok {
				tell(e)
			}
		}
	})
	return nil
}

// htons is v in network byte order, as a packet socket's protocol is.
func htons(v uint16) uint16 { return v<<8 | v>>8 }

// addLocalRoute adds "local default dev lo" for family (AF_INET or
// AF_INET6) to the local table of the calling thread's namespace, by
// netlink: every address of that family is then the box's own.
func addLocalRoute(family, ifindex int) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	const hdr, rtmsg, attr = unix.SizeofNlMsghdr, unix.SizeofRtMsg, unix.SizeofRtAttr + 4
	msg := make([]byte, hdr+rtmsg+attr)
	ne := binary.NativeEndian
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], unix.RTM_NEWROUTE)
	ne.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	ne.PutUint32(msg[8:], 1) // sequence
	rt := msg[hdr:]
	rt[0] = byte(family)        // rtm_family; dst_len, src_len, tos 0: the default
	rt[4] = unix.RT_TABLE_LOCAL // rtm_table
	rt[5] = unix.RTPROT_BOOT    // rtm_protocol
	rt[6] = unix.RT_SCOPE_HOST  // rtm_scope
	rt[7] = unix.RTN_LOCAL      // rtm_type
	a := msg[hdr+rtmsg:]
	ne.PutUint16(a[0:], attr)
	ne.PutUint16(a[2:], unix.RTA_OIF)
	ne.PutUint32(a[4:], uint32(ifindex))
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	if n < hdr+4 || ne.Uint16(buf[4:]) != unix.NLMSG_ERROR {
		return errors.New("netlink: no acknowledgement")
	}
	if code := int32(ne.Uint32(buf[hdr:])); code != 0 {
		return unix.Errno(-code)
	}
	return nil
}
