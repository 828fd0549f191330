package check

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
)

// Dockerfile is what a Dockerfile's final stage makes, as BuildKit reads it.
type Dockerfile struct {
	Base                      string // the final stage's FROM, ARGs unexpanded
	Entrypoint, Cmd           []string
	ShellEntrypoint, ShellCmd bool // given in shell form, so run by /bin/sh -c
	User, Workdir             string
	Expose                    []string
	Labels                    map[string]string // values unquoted; those naming a build argument as written
	Copies                    map[string]string // destination → the stage it is copied from
	// Builds are the RUN commands and ENV settings of the stages the final one copies from.
	Builds []string
}

// ParseDockerfile reads a Dockerfile with BuildKit's parser and its typed instructions; lint warnings
// (BuildKit's checks, as `docker build --check` runs them) are errors too.
func ParseDockerfile(src []byte) (Dockerfile, error) {
	var d Dockerfile
	res, err := parser.Parse(bytes.NewReader(src))
	if err != nil {
		return d, err
	}
	if len(res.Warnings) > 0 {
		return d, fmt.Errorf("parser warning: %s", res.Warnings[0].Short)
	}
	var lintErrs []string
	lint := linter.New(&linter.Config{Warn: func(rule, _, _, msg string, _ []parser.Range) {
		lintErrs = append(lintErrs, rule+": "+msg)
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	if err != nil {
		return d, err
	}
	if len(lintErrs) > 0 {
		return d, fmt.Errorf("lint: %s", strings.Join(lintErrs, "; "))
	}
	if len(stages) == 0 {
		return d, fmt.Errorf("no stage")
	}
	byName := map[string]instructions.Stage{}
	for _, s := range stages {
		byName[s.Name] = s
	}
	final := stages[len(stages)-1]
	d.Base = final.BaseName
	d.Labels = map[string]string{}
	d.Copies = map[string]string{}
	from := map[string]bool{}
	for _, c := range final.Commands {
		switch c := c.(type) {
		case *instructions.EntrypointCommand:
			d.Entrypoint, d.ShellEntrypoint = c.CmdLine, c.PrependShell
		case *instructions.CmdCommand:
			d.Cmd, d.ShellCmd = c.CmdLine, c.PrependShell
		case *instructions.UserCommand:
			d.User = c.User
		case *instructions.WorkdirCommand:
			d.Workdir = c.Path
		case *instructions.ExposeCommand:
			d.Expose = append(d.Expose, c.Ports...)
		case *instructions.LabelCommand:
			lex := shell.NewLex(res.EscapeToken)
			for _, kv := range c.Labels {
				v := kv.Value
				if !strings.Contains(v, "$") {
					if v, _, err = lex.ProcessWord(v, shell.EnvsFromSlice(nil)); err != nil {
						return d, fmt.Errorf("LABEL %s: %w", kv.Key, err)
					}
				}
				d.Labels[kv.Key] = v
			}
		case *instructions.CopyCommand:
			d.Copies[c.DestPath] = c.From
			if c.From != "" {
				from[c.From] = true
			}
		}
	}
	for name := range from {
		s, ok := byName[name]
		if !ok {
			return d, fmt.Errorf("COPY --from=%s: no such stage", name)
		}
		for _, c := range s.Commands {
			switch c := c.(type) {
			case *instructions.RunCommand:
				d.Builds = append(d.Builds, strings.Join(c.CmdLine, " "))
			case *instructions.EnvCommand:
				for _, kv := range c.Env {
					d.Builds = append(d.Builds, "ENV "+kv.Key+"="+kv.Value)
				}
			}
		}
	}
	return d, nil
}

// CompareDockerfile returns every way the image the Dockerfile builds differs from img, the image
// deploy/build-image.sh built: entrypoint and command (both in exec form), user, working directory,
// exposed ports, label names (and the values that do not come from build arguments), and the files
// copied in. It also wants the final stage on distroless's static nonroot base, and the binaries built
// static (CGO_ENABLED=0) from ./cmd/polgraph.
func CompareDockerfile(d Dockerfile, img Image, spec ImageSpec) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	c := img.Config.Config
	if !strings.HasPrefix(d.Base, "gcr.io/distroless/static") || !strings.Contains(d.Base, ":nonroot") {
		bad("the final stage is FROM %s, want distroless's static image, nonroot tag", d.Base)
	}
	if d.ShellEntrypoint || !slices.Equal(d.Entrypoint, c.Entrypoint) {
		bad("ENTRYPOINT %q (shell form %v), the image's %q", d.Entrypoint, d.ShellEntrypoint, c.Entrypoint)
	}
	if d.ShellCmd || !slices.Equal(d.Cmd, c.Cmd) {
		bad("CMD %q (shell form %v), the image's %q", d.Cmd, d.ShellCmd, c.Cmd)
	}
	if d.User != c.User {
		bad("USER %q, the image's %q", d.User, c.User)
	}
	if d.Workdir != c.WorkingDir {
		bad("WORKDIR %q, the image's %q", d.Workdir, c.WorkingDir)
	}
	if got, want := slices.Sorted(slices.Values(d.Expose)), slices.Sorted(maps.Keys(c.ExposedPorts)); !slices.Equal(got, want) {
		bad("EXPOSE %q, the image's %q", got, want)
	}
	if got, want := slices.Sorted(maps.Keys(d.Labels)), slices.Sorted(maps.Keys(c.Labels)); !slices.Equal(got, want) {
		bad("LABEL names %q, the image's %q", got, want)
	}
	for k, v := range d.Labels {
		if !strings.Contains(v, "$") && c.Labels[k] != "" && v != c.Labels[k] {
			bad("LABEL %s=%q, the image's %q", k, v, c.Labels[k])
		}
	}
	for _, p := range spec.Executables {
		if d.Copies[p] == "" {
			bad("%s is not copied from a build stage", p)
		}
	}
	builds := strings.Join(d.Builds, "\n")
	if !strings.Contains(builds, "CGO_ENABLED=0") {
		bad("the build stage does not set CGO_ENABLED=0, so the binaries may need a C library distroless static lacks")
	}
	if !strings.Contains(builds, "./cmd/polgraph") {
		bad("the build stage does not build ./cmd/polgraph")
	}
	return errs
}
