// Command nsforward makes a server that runs inside a network namespace holding only loopback
// reachable from this machine's loopback, and from nowhere else.
//
// SeaTunnel 2.3.13's Jetty binds every interface and has no host setting, so the test node runs
// in a namespace of its own (`ip netns add`), where every interface is loopback. nsforward listens
// on 127.0.0.1:PORT in the namespace it was started in and, for each connection, dials the target
// address from inside the named namespace, then copies bytes both ways.
//
//	nsforward -netns /run/netns/NAME -listen 127.0.0.1:18080 -target 127.0.0.1:8080
//
// It refuses a listen or target address that is not loopback.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	nsPath := flag.String("netns", "", "path of the network namespace to dial into (e.g. /run/netns/NAME)")
	listen := flag.String("listen", "", "loopback address to listen on here (host:port)")
	target := flag.String("target", "", "loopback address to dial inside the namespace (host:port)")
	flag.Parse()
	if err := run(*nsPath, *listen, *target); err != nil {
		log.Fatalf("nsforward: %v", err)
	}
}

func run(nsPath, listen, target string) error {
	if nsPath == "" || listen == "" || target == "" {
		return errors.New("-netns, -listen and -target are required")
	}
	for _, a := range []string{listen, target} {
		if err := mustBeLoopback(a); err != nil {
			return err
		}
	}
	if _, err := os.Stat(nsPath); err != nil {
		return fmt.Errorf("namespace: %w", err)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() { <-ctx.Done(); _ = ln.Close() }()
	log.Printf("nsforward: %s → %s in %s", listen, target, nsPath)
	var wg sync.WaitGroup
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				wg.Wait()
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			serve(ctx, c, nsPath, target)
		}()
	}
}

func mustBeLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("address %q is not a loopback address", addr)
	}
	return nil
}

func serve(ctx context.Context, c net.Conn, nsPath, target string) {
	defer c.Close()
	up, err := dialIn(nsPath, target)
	if err != nil {
		log.Printf("nsforward: %v", err)
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	select {
	case <-done:
		<-done
	case <-ctx.Done():
	}
}

// dialIn connects to addr from inside the namespace at nsPath. A socket belongs to the namespace
// of the thread that made it, so the dial runs on a thread of its own that enters the namespace;
// that thread is never handed back to the Go scheduler (it ends with its goroutine).
func dialIn(nsPath, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // not unlocked: the thread is in another namespace now
		f, err := os.Open(nsPath)
		if err != nil {
			ch <- result{err: fmt.Errorf("open namespace: %w", err)}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("enter namespace %s: %w", nsPath, err)}
			return
		}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			err = fmt.Errorf("dial %s in %s: %w", addr, nsPath, err)
		}
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}
