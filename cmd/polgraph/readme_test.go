package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEExamplesRun runs every grpcurl and polgraph command of the README against the service under
// test, as written but for the addresses.
func TestREADMEExamplesRun(t *testing.T) {
	cmds := append(readmeCommands(t, "../../README.md"), readmeCommands(t, "../../data/tower-hamlets/README.md")...)
	if len(cmds) < 11 {
		t.Fatalf("found only %d example commands in the README", len(cmds))
	}
	grpcurl := findGrpcurl(t)
	for _, line := range cmds {
		t.Run(line, func(t *testing.T) {
			args := shellWords(t, line)
			var out bytes.Buffer
			var err error
			switch args[0] {
			case "grpcurl":
				for i, a := range args {
					if a == "127.0.0.1:50051" {
						args[i] = serverAddr
					}
				}
				cmd := exec.Command(grpcurl, args[1:]...)
				cmd.Dir = "../.."
				cmd.Stdout, cmd.Stderr = &out, &out
				err = cmd.Run()
			case "./bin/polgraph":
				switch args[1] {
				case "path", "around":
					args = append(args, "--server", serverAddr)
				case "load":
					args = append(args[:2], append(dgraphFlags(), args[2:]...)...)
					for i, a := range args {
						if strings.HasPrefix(a, "data/") {
							args[i] = "../../" + a
						}
					}
				}
				err = realMain(context.Background(), args[1:], &out, &out)
			default:
				t.Fatalf("no runner for %q", args[0])
			}
			if strings.Contains(line, `"max_depth": 9`) { // the README's example of a refused request
				if err == nil || !strings.Contains(out.String(), "InvalidArgument") {
					t.Errorf("want the request refused with InvalidArgument; got %v\n%s", err, out.String())
				}
				return
			}
			if err != nil {
				t.Errorf("%v\n%s", err, out.String())
			}
			if out.Len() == 0 {
				t.Errorf("no output")
			}
		})
	}
}

// readmeCommands returns the lines of ```sh blocks that run grpcurl or the polgraph binary.
func readmeCommands(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	inSh := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(strings.TrimSpace(line), "```sh"):
			inSh = true
		case strings.HasPrefix(strings.TrimSpace(line), "```"):
			inSh = false
		case inSh && (strings.HasPrefix(line, "grpcurl ") || strings.HasPrefix(line, "./bin/polgraph ")):
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// findGrpcurl finds the grpcurl that `make tools` installs. `make test` installs it first, so it is an
// error for it to be missing there; a bare `go test` without it skips.
func findGrpcurl(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("grpcurl"); err == nil {
		return p
	}
	if gopath, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "grpcurl")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("POLGRAPH_REQUIRE_TOOLS") != "" {
		t.Fatal("grpcurl is not installed; run `make tools`")
	}
	t.Skip("grpcurl is not installed (`make tools`); `make test` installs it")
	return ""
}

// shellWords splits a command line as a POSIX shell would for the simple quoting the README uses.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
