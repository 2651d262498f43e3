/*
Copyright 2026 The applyset-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package testenv

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards TCP connections on loopback to a target, as a network
// between two parts of a cluster would: it can delay every byte by a latency
// (a slow link or a slow etcd) and cut every connection at once (a partition).
type Proxy struct {
	// Addr is where the proxy listens (host:port).
	Addr string

	target   string
	listener net.Listener
	latency  atomic.Int64
	mu       sync.Mutex
	conns    []net.Conn
	cut      bool
}

// StartProxy listens on a free loopback port and forwards to target (host:port).
func StartProxy(target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: l.Addr().String(), target: target, listener: l}
	go p.serve()
	return p, nil
}

// SetLatency delays what is sent each way from now on by d; 0 forwards at once.
func (p *Proxy) SetLatency(d time.Duration) { p.latency.Store(int64(d)) }

// Cut closes the listener and every connection, and refuses new ones.
func (p *Proxy) Cut() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return nil
	}
	p.cut = true
	errs := []error{ignoreClosed(p.listener.Close())}
	for _, c := range p.conns {
		errs = append(errs, ignoreClosed(c.Close()))
	}
	return errors.Join(errs...)
}

func (p *Proxy) serve() {
	for {
		in, err := p.listener.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			_, _ = in.Close(), out.Close()
			return
		}
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go p.pipe(out, in)
		go p.pipe(in, out)
	}
}

// chunk is what one read returned, and when it may be written on.
type chunk struct {
	data []byte
	due  time.Time
}

// pipe copies src to dst, holding each chunk back until the latency that held
// when it was read has passed. Reading goes on meanwhile, so a latency delays
// the stream without narrowing it, as a long link does.
func (p *Proxy) pipe(dst, src net.Conn) {
	chunks := make(chan chunk, 256)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{data: buf[:n], due: time.Now().Add(time.Duration(p.latency.Load()))}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.data); err != nil {
			break
		}
	}
	// Either side ending ends both, and unblocks the reader above.
	_, _ = dst.Close(), src.Close()
	for range chunks {
	}
}

func ignoreClosed(err error) error {
	if errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
