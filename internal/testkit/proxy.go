// Package testkit holds what the tests and benchmarks of drivers and
// commands share below the pipeline: a TCP proxy that stalls or cuts a
// connection (failures a real server does not produce on cue),
// throwaway TLS certificates, and the process's CPU time.
package testkit

import (
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a real server until it is cut, when
// every open connection is closed and new ones are refused: the closest a
// test can get to a server dying mid-run without killing a server other
// tests share. Stall holds every byte instead, as a server that hangs
// with its connections open.
type Proxy struct {
	target string
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	cut    bool
	// stalled is closed by Cut; while it is set, forwarding waits on it.
	stalled chan struct{}
}

// NewProxy listens on a free loopback port and forwards to target
// (host:port). It is closed when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy listen: %v", err)
	}
	p := &Proxy{target: target, ln: ln}
	go p.accept()
	t.Cleanup(p.Cut)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			_ = c.Close()
			_ = s.Close()
			return
		}
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go p.pipe(c, s)
		go p.pipe(s, c)
	}
}

// pipe copies src to dst until either is closed, holding what it read
// while the proxy is stalled.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			stalled := p.stalled
			p.mu.Unlock()
			if stalled != nil {
				<-stalled // until Cut, which closes the connections
				return
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Stall stops forwarding in both directions, keeping every connection
// open, until Cut. Bytes being written when it is called still arrive.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled == nil && !p.cut {
		p.stalled = make(chan struct{})
	}
}

// Cut closes every connection and stops accepting new ones; connecting
// afterwards is refused.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return
	}
	p.cut = true
	_ = p.ln.Close()
	for _, c := range p.conns {
		_ = c.Close()
	}
	if p.stalled != nil {
		close(p.stalled)
	}
}
