package main

import (
	"fmt"
	"net"
)

// listenExplorer opens the graph explorer's HTTP listener; it returns nil when addr is empty (the explorer
// is turned off).
func listenExplorer(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for the graph explorer: %w (set --http or POLGRAPH_HTTP to another address, or to \"\" to turn the explorer off)", addr, err)
	}
	return lis, nil
}

// explorerURL is the address to print for a listener: loopback in place of an unspecified host.
func explorerURL(lis net.Listener) string {
	host, port, err := net.SplitHostPort(lis.Addr().String())
	if err != nil {
		return "http://" + lis.Addr().String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
