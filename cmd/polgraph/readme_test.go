package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// documented are the pages whose examples TestREADMEExamplesRun runs, in the order they run: the README,
// the reference pages in docs/ (in the order their examples build on each other: keys made in writing.md
// are used after it), and the default dataset's README last.
var documented = []string{"README.md", "docs/api.md", "docs/writing.md", "docs/live.md", "docs/articles.md", "docs/access.md",
	"docs/explorer.md", "docs/concepts.md", "docs/formats.md", "docs/architecture.md", "docs/running.md",
	"docs/security.md", "docs/operations.md", "data/tower-hamlets/README.md"}

// TestREADMEExamplesRun runs every grpcurl, curl and polgraph command of the README and the documented
// pages against the service under test, as written but for the addresses, and compares what it prints
// with the output the page shows after it (see matchOutput).
func TestREADMEExamplesRun(t *testing.T) {
	readmeData = t.TempDir()
	var examples []example
	for _, page := range documented {
		examples = append(examples, readmeExamples(t, "../../"+page)...)
	}
	if len(examples) < 11 {
		t.Fatalf("found only %d example commands in the README", len(examples))
	}
	shown := 0
	grpcurl := findGrpcurl(t)
	for _, ex := range examples {
		if m := exportKey.FindStringSubmatch(ex.command); m != nil {
			t.Setenv(m[1], "") // unset until the README sets it, and restored at the end
		}
	}
	for _, ex := range examples {
		t.Run(ex.command, func(t *testing.T) {
			out, err := runReadmeCommand(t, grpcurl, ex.command)
			// An example whose output the README shows as an error must fail; every other must succeed.
			wantErr := len(ex.want) > 0 && strings.TrimSpace(ex.want[0]) == "ERROR:"
			switch {
			case wantErr && err == nil:
				t.Errorf("want the command refused; it succeeded:\n%s", out)
			case !wantErr && err != nil:
				t.Errorf("%v\n%s", err, out)
			}
			if out == "" && !strings.HasPrefix(ex.command, "export ") {
				t.Errorf("no output")
			}
			if ex.want != nil {
				shown++
				if err := matchOutput(ex.want, out); err != nil {
					t.Errorf("%s:%d: the output differs from the README's: %v\nthe whole output:\n%s", ex.file, ex.line, err, out)
				}
			}
		})
	}
	if shown < 10 {
		t.Errorf("only %d examples show their output; the README's outputs are not being checked", shown)
	}
}

// readmeData stands for .data/ in the examples of backups and restores.
var readmeData string

// exportKey is a README line that keeps a new key in the environment.
var exportKey = regexp.MustCompile(`^export (\w+)=\$\((\./bin/polgraph keys create [^|]+) \| awk '/\^key:/ \{print \$2\}'\)$`)

// runReadmeCommand runs a README command as written but for the addresses: grpcurl and curl against the
// service under test; the polgraph commands that write to Dgraph (load, import, keys, ingest but a dry run)
// with the test Dgraph's flags, and the others (and `load --server`) with the service's address; an
// `export VAR=$(./bin/polgraph keys create … | awk …)` sets VAR to the key made, for the commands after it.
// It returns what the command printed, with the service's and the test Dgraph's addresses written back as
// the README's.
func runReadmeCommand(t *testing.T, grpcurl, command string) (string, error) {
	var out bytes.Buffer
	var err error
	if m := exportKey.FindStringSubmatch(command); m != nil {
		out, err := runReadmeCommand(t, grpcurl, m[2])
		if err != nil {
			return out, err
		}
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "key:" {
				// The variable outlives this subtest, as it does in a shell (TestREADMEExamplesRun restores it).
				os.Setenv(m[1], f[1])
				return "", nil
			}
		}
		return out, fmt.Errorf("%s printed no key: line", m[2])
	}
	args := shellWords(t, command)
	for i, a := range args {
		args[i] = strings.NewReplacer("127.0.0.1:50051", serverAddr, "127.0.0.1:8080", explorerAddr).Replace(a)
	}
	switch args[0] {
	case "grpcurl", "curl":
		bin := grpcurl
		if args[0] == "curl" {
			bin = "curl"
		}
		cmd := exec.Command(bin, args[1:]...)
		cmd.Dir = "../.."
		cmd.Stdout, cmd.Stderr = &out, &out
		err = cmd.Run()
	case "./bin/polgraph":
		for i, a := range args {
			if strings.HasPrefix(a, "data/") {
				args[i] = "../../" + a
			}
		}
		switch {
		case slices.Contains(args, "--server"):
		case args[1] == "load":
			args = append(args[:2], append(dgraphFlags(), args[2:]...)...)
		case args[1] == "import":
			args = append(args[:3], append(dgraphFlags(), args[3:]...)...)
		case args[1] == "keys", args[1] == "ingest" && !slices.Contains(args, "--dry-run"):
			args = append(args, dgraphFlags()...)
		case args[1] == "backup", args[1] == "restore":
			// Their folders go to a temporary one; a restore starts its Dgraph on free ports.
			for i, a := range args {
				if rest, ok := strings.CutPrefix(a, ".data/"); ok {
					args[i] = filepath.Join(readmeData, rest)
				}
			}
			if args[1] == "backup" {
				args = append(args, dgraphFlags()...)
			} else {
				offset, ferr := dgraphlocal.FreeOffset(3300 + os.Getpid()%50*7)
				if ferr != nil {
					t.Fatal(ferr)
				}
				args = append(args, "--dgraph-port-offset", strconv.Itoa(offset))
			}
		case args[1] == "evaluate":
		default:
			args = append(args, "--server", serverAddr)
		}
		err = realMain(context.Background(), args[1:], &out, &out)
	default:
		t.Fatalf("no runner for %q", args[0])
	}
	// Paths into data/ were given from the package's folder, and the test Dgraph is `make run`'s: they are
	// shown as the README gives them.
	return strings.NewReplacer(serverAddr, "127.0.0.1:50051", explorerAddr, "127.0.0.1:8080", alphaAddr, "127.0.0.1:9180",
		"../../data/", "data/", readmeData+"/", ".data/").Replace(out.String()), err
}

// example is a command of a README and the output it shows after it (nil when it shows none).
type example struct {
	file    string
	line    int
	command string
	want    []string
}

// readmeExamples returns the commands of ```sh blocks that run grpcurl, curl or the polgraph binary, or
// keep a key in the environment (exportKey) (a
// command continued with a backslash is joined into one line), each with the plain ``` block that follows
// its block, when the block holds just that command.
func readmeExamples(t *testing.T, path string) []example {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []example
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```sh" {
			continue
		}
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		var cmds []example
		cur := ""
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			line := strings.TrimSpace(lines[i])
			if cont, ok := strings.CutSuffix(line, "\\"); ok {
				cur += cont
				continue
			}
			line, cur = cur+line, ""
			if strings.HasPrefix(line, "grpcurl ") || strings.HasPrefix(line, "curl ") || strings.HasPrefix(line, "./bin/polgraph ") || exportKey.MatchString(line) {
				cmds = append(cmds, example{file: path, line: i + 1, command: line})
			}
		}
		// The output block, if one follows.
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if len(cmds) == 1 && j < len(lines) && strings.TrimSpace(lines[j]) == "```" {
			want := []string{}
			for j++; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
				l := lines[j]
				if len(l) >= indent && strings.TrimSpace(l[:indent]) == "" {
					l = l[indent:]
				}
				want = append(want, l)
			}
			cmds[0].want = want
			i = j
		}
		out = append(out, cmds...)
	}
	return out
}

var (
	durations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m)\b`)
	rates     = regexp.MustCompile(`\(\d+ relations/s\)`)
)

// normalizeLine is a line of output as it is compared: without trailing spaces, and with durations and
// rates, which differ from run to run, replaced by placeholders.
func normalizeLine(s string) string {
	s = strings.TrimRight(s, " \t\r")
	s = rates.ReplaceAllString(s, "(N relations/s)")
	return durations.ReplaceAllString(s, "DURATION")
}

// matchOutput checks output against the lines a README shows: the shown lines are the output's own lines,
// in order; a line of just "..." (at any indentation) stands for any number of lines left out, and "..."
// within a line for any text (a time, a key's id). Without a "..." at its start (or end), what is shown
// starts (or ends) where the output does.
func matchOutput(want []string, output string) error {
	got := strings.Split(strings.TrimRight(output, "\n"), "\n")
	for i := range got {
		got[i] = normalizeLine(got[i])
	}
	var segments [][]string
	seg := []string{}
	openStart, openEnd := false, false
	for i, w := range want {
		if strings.TrimSpace(w) == "..." {
			if i == 0 {
				openStart = true
			}
			if i == len(want)-1 {
				openEnd = true
			}
			if len(seg) > 0 {
				segments = append(segments, seg)
			}
			seg = []string{}
			continue
		}
		seg = append(seg, normalizeLine(w))
	}
	if len(seg) > 0 {
		segments = append(segments, seg)
	}
	at := 0
	for k, seg := range segments {
		found := -1
		for i := at; i+len(seg) <= len(got); i++ {
			if slices.EqualFunc(seg, got[i:i+len(seg)], lineMatches) {
				found = i
				break
			}
			if k == 0 && !openStart {
				break // the first lines shown must be the first printed
			}
		}
		if found < 0 {
			return fmt.Errorf("these lines, in this order, are not in the output (after line %d):\n%s", at, strings.Join(seg, "\n"))
		}
		at = found + len(seg)
	}
	if !openEnd && at != len(got) && len(segments) > 0 {
		return fmt.Errorf("the output goes on after the lines shown (%d more); end the README's block with ...", len(got)-at)
	}
	return nil
}

// lineMatches says whether an output line is the line shown, where "..." stands for any text.
func lineMatches(shown, line string) bool {
	if !strings.Contains(shown, "...") {
		return shown == line
	}
	parts := strings.Split(shown, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(line)
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

func TestMatchOutput(t *testing.T) {
	t.Parallel()
	out := "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\nloaded in 412ms (272 relations/s)"
	for _, tc := range []struct {
		name string
		want []string
		ok   bool
	}{
		{"all of it", []string{"{", `  "a": 1,`, `  "b": 2,`, `  "c": 3`, "}", "loaded in 9ms (1 relations/s)"}, true},
		{"the start and a gap", []string{"{", `  "a": 1,`, "  ...", "}", "..."}, true},
		{"a middle", []string{"...", `  "b": 2,`, "..."}, true},
		{"out of order", []string{"...", `  "c": 3`, `  "a": 1,`, "..."}, false},
		{"not at the start", []string{`  "b": 2,`, "..."}, false},
		{"goes on", []string{"{", `  "a": 1,`}, false},
		{"a changed value", []string{"...", `  "b": 3,`, "..."}, false},
		{"lines that are not together", []string{"...", `  "a": 1,`, `  "c": 3`, "..."}, false},
		{"indentation counts", []string{"...", `"b": 2,`, "..."}, false},
		{"a value left out", []string{"...", `  "b": ...,`, "..."}, true},
		{"a value left out, the rest kept", []string{"...", `  "b": ...3,`, "..."}, false},
		{"a line's end left out", []string{"...", "loaded in ..."}, true},
	} {
		if err := matchOutput(tc.want, out); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
