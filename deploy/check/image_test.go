package check

import (
	"archive/tar"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// root is the repository's root, from this package's directory (where go test runs its tests).
const root = "../.."

// The image that `make image` built, read once by TestMain (the error, if it could not be, fails the
// tests that need it).
var (
	builtImage    Image
	builtImageTar string
	builtImageDir string
	builtImageErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "polgraph-image-check-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	builtImageDir = dir
	builtImageTar = os.Getenv("POLGRAPH_IMAGE_TAR")
	if builtImageTar == "" {
		builtImageTar = filepath.Join(root, "bin", "polgraph-image.tar")
	}
	if _, err := os.Stat(builtImageTar); err != nil {
		builtImageErr = fmt.Errorf("%w: build the image with `make image` (`make deploy-check` does)", err)
	} else {
		builtImage, builtImageErr = ReadImage(builtImageTar, dir, PolgraphImage.Executables...)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// image is the image `make image` built; the test fails when there is none.
func image(t *testing.T) Image {
	t.Helper()
	if builtImageErr != nil {
		t.Fatal(builtImageErr)
	}
	return builtImage
}

func TestImage(t *testing.T) {
	t.Parallel()
	img := image(t)
	for _, err := range CheckImage(img, PolgraphImage) {
		t.Error(err)
	}
}

// TestImageBinariesRun runs the binaries taken out of the image: each is static, polgraph answers
// `help` with its usage, and grpc_health_probe is the version deploy/build-image.sh pins.
func TestImageBinariesRun(t *testing.T) {
	t.Parallel()
	image(t)
	for _, p := range PolgraphImage.Executables {
		if err := CheckStaticELF(filepath.Join(builtImageDir, "rootfs", p)); err != nil {
			t.Error(err)
		}
	}
	out, err := exec.Command(filepath.Join(builtImageDir, "rootfs", "polgraph"), "help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Commands:") || !strings.Contains(string(out), "serve") {
		t.Errorf("polgraph help: %v\n%s", err, out)
	}
	out, err = exec.Command(filepath.Join(builtImageDir, "rootfs", "grpc_health_probe"), "-version").CombinedOutput()
	if want := pinnedVersion(t, "deploy/build-image.sh", "probe_version") + ";"; err != nil || !strings.HasPrefix(string(out), want) {
		t.Errorf("grpc_health_probe -version: %v: %q, want it to start with %q", err, out, want)
	}
}

func TestCheckImageFindsProblems(t *testing.T) {
	t.Parallel()
	good := image(t)
	for _, tc := range []struct {
		name   string
		change func(*Image)
		want   string
	}{
		{"root user", func(i *Image) { i.Config.Config.User = "0:0" }, "is root"},
		{"no user", func(i *Image) { i.Config.Config.User = "" }, "run as root"},
		{"named user", func(i *Image) { i.Config.Config.User = "nonroot" }, "not a numeric UID"},
		{"shell entrypoint", func(i *Image) { i.Config.Config.Entrypoint = []string{"/bin/sh", "-c", "/polgraph"} }, "entrypoint"},
		{"another command", func(i *Image) { i.Config.Config.Cmd = []string{"run"} }, "cmd"},
		{"a port not exposed", func(i *Image) { delete(i.Config.Config.ExposedPorts, "50051/tcp") }, "exposed ports"},
		{"no source label", func(i *Image) { delete(i.Config.Config.Labels, "org.opencontainers.image.source") }, "label org.opencontainers.image.source"},
		{"tagged latest", func(i *Image) { i.Ref, i.DockerTags = "polgraph:latest", []string{"polgraph:latest"} }, "tagged latest"},
		{"no tag", func(i *Image) { i.Ref, i.DockerTags = "polgraph", []string{"polgraph"} }, "has no tag"},
		{"Docker tag differs", func(i *Image) { i.DockerTags = []string{"polgraph:other"} }, "manifest.json tags"},
		{"no polgraph", func(i *Image) { delete(i.Files, "/polgraph") }, "/polgraph is not in the image"},
		{"polgraph not executable", func(i *Image) { f := i.Files["/polgraph"]; f.Mode = 0o644; i.Files["/polgraph"] = f }, "not executable"},
		{"polgraph writable", func(i *Image) { f := i.Files["/polgraph"]; f.Mode = 0o777; i.Files["/polgraph"] = f }, "can be changed"},
		{"polgraph a directory", func(i *Image) { f := i.Files["/polgraph"]; f.Type = tar.TypeDir; i.Files["/polgraph"] = f }, "not a regular file"},
		{"no probe", func(i *Image) { delete(i.Files, "/grpc_health_probe") }, "/grpc_health_probe is not in the image"},
		{"no CA bundle", func(i *Image) { delete(i.Files, "/etc/ssl/certs/ca-certificates.crt") }, "ca-certificates.crt"},
		{"no /tmp", func(i *Image) { delete(i.Files, "/tmp") }, "/tmp"},
		{"Windows", func(i *Image) { i.Config.OS = "windows" }, "platform"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := good
			img.Config = *good.Config.DeepCopy()
			img.Files = maps.Clone(good.Files)
			img.DockerTags = slices.Clone(good.DockerTags)
			tc.change(&img)
			if errs := CheckImage(img, PolgraphImage); !anyContains(errs, tc.want) {
				t.Errorf("want a problem with %q; got %v", tc.want, errs)
			}
		})
	}
}

// TestReadImageRefusesBrokenTarballs breaks the tarball itself: a blob changed, a view missing.
func TestReadImageRefusesBrokenTarballs(t *testing.T) {
	t.Parallel()
	image(t) // the tarball exists and reads
	for _, tc := range []struct {
		name    string
		breakIt func(dir string) error
	}{
		{"a layer changed", func(dir string) error {
			layer := largestBlob(t, dir)
			b, err := os.ReadFile(layer)
			if err != nil {
				return err
			}
			b[len(b)/2] ^= 0xff
			return os.WriteFile(layer, b, 0o644)
		}},
		{"no manifest.json", func(dir string) error { return os.Remove(filepath.Join(dir, "manifest.json")) }},
		{"no index.json", func(dir string) error { return os.Remove(filepath.Join(dir, "index.json")) }},
		{"manifest.json names another config", func(dir string) error {
			p := filepath.Join(dir, "manifest.json")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, regexp.MustCompile(`"Config":"[^"]*"`).ReplaceAll(b, []byte(`"Config":"oci-layout"`)), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := untar(builtImageTar, dir); err != nil {
				t.Fatal(err)
			}
			if err := tc.breakIt(dir); err != nil {
				t.Fatal(err)
			}
			tarPath := filepath.Join(t.TempDir(), "broken.tar")
			if err := tarDir(dir, tarPath); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadImage(tarPath, t.TempDir()); err == nil {
				t.Error("the broken tarball was read without an error")
			}
		})
	}
}

// tarDir writes the files under dir into a tarball.
func tarDir(dir, tarPath string) error {
	f, err := os.Create(tarPath)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	if err := tw.AddFS(os.DirFS(dir)); err != nil {
		f.Close()
		return err
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// largestBlob is the biggest file under dir/blobs: the image's layer.
func largestBlob(t *testing.T, dir string) string {
	t.Helper()
	var best string
	var size int64
	filepath.WalkDir(filepath.Join(dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil && info.Size() > size {
				best, size = p, info.Size()
			}
		}
		return nil
	})
	if best == "" {
		t.Fatal("no blob")
	}
	return best
}

// TestPinnedToolVersionsAgree holds the versions of the image's tools together: deploy/build-image.sh's,
// those their modules require, and deploy/Dockerfile's.
func TestPinnedToolVersionsAgree(t *testing.T) {
	t.Parallel()
	crane := pinnedVersion(t, "deploy/build-image.sh", "crane_version")
	probe := pinnedVersion(t, "deploy/build-image.sh", "probe_version")
	if got := requiredVersion(t, "deploy/tools/crane/go.mod", "github.com/google/go-containerregistry"); got != crane {
		t.Errorf("deploy/tools/crane/go.mod requires go-containerregistry %s; build-image.sh says crane %s", got, crane)
	}
	if got := requiredVersion(t, "deploy/tools/healthprobe/go.mod", "github.com/grpc-ecosystem/grpc-health-probe"); got != probe {
		t.Errorf("deploy/tools/healthprobe/go.mod requires grpc-health-probe %s; build-image.sh says %s", got, probe)
	}
	df, err := os.ReadFile(filepath.Join(root, "deploy/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`main\.versionTag=` + regexp.QuoteMeta(probe) + `["\s]`).Match(df) {
		t.Errorf("deploy/Dockerfile does not build grpc_health_probe %s", probe)
	}
}

// pinnedVersion reads NAME=VALUE from a shell script of the repository.
func pinnedVersion(t *testing.T, file, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + name + `=(v[0-9][^\s]*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s sets no %s", file, name)
	}
	return string(m[1])
}

// requiredVersion is the version of a module that a go.mod of the repository requires.
func requiredVersion(t *testing.T, file, module string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(file, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == module {
			return r.Mod.Version
		}
	}
	t.Fatalf("%s does not require %s", file, module)
	return ""
}

// anyContains reports whether one of errs says want.
func anyContains(errs []error, want string) bool {
	for _, err := range errs {
		if strings.Contains(err.Error(), want) {
			return true
		}
	}
	return false
}
