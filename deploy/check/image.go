package check

import (
	"archive/tar"
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// Image is what a container image tarball holds, as CheckImage looks at it.
type Image struct {
	Ref        string          // the OCI layout's org.opencontainers.image.ref.name, e.g. polgraph:1a2b3c4
	DockerTags []string        // the RepoTags of the tarball's Docker manifest.json
	MediaType  types.MediaType // the image manifest's
	Config     v1.ConfigFile
	Files      map[string]File // the image's filesystem, every layer applied, by absolute path
}

// File is one entry of an image's filesystem.
type File struct {
	Type     byte // tar's type flag: tar.TypeReg, tar.TypeDir, ...
	Mode     fs.FileMode
	UID, GID int
	Size     int64
}

// ImageSpec is what polgraph's image must be.
type ImageSpec struct {
	Entrypoint, Cmd []string
	ExposedPorts    []string // as in the image configuration: "50051/tcp"
	Executables     []string // static Linux binaries that any user may run and none but root change
	Files           []string // other regular files that must be there
	Labels          []string // labels that must be set, not empty
}

// PolgraphImage is polgraph's image as deploy/build-image.sh and deploy/Dockerfile make it.
var PolgraphImage = ImageSpec{
	Entrypoint:   []string{"/polgraph"},
	Cmd:          []string{"serve"},
	ExposedPorts: []string{"50051/tcp", "8080/tcp", "9090/tcp"},
	Executables:  []string{"/polgraph", "/grpc_health_probe"},
	Files:        []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/passwd", "/etc/group"},
	Labels: []string{"org.opencontainers.image.title", "org.opencontainers.image.source",
		"org.opencontainers.image.version", "org.opencontainers.image.revision"},
}

// ReadImage reads an image tarball as deploy/build-image.sh writes it: an OCI image layout holding one
// image, with Docker's manifest.json for the same blobs beside it. It unpacks the tarball into dir and
// also writes there, under rootfs/, the regular files of the image's filesystem that exec names (so
// that they can be run). It returns an error when either view of the tarball is missing or inconsistent:
// a blob whose digest, size or diff ID is wrong, or the two views naming different blobs.
func ReadImage(tarPath, dir string, exec ...string) (Image, error) {
	var img Image
	if err := untar(tarPath, dir); err != nil {
		return img, err
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return img, fmt.Errorf("%s is no OCI image layout: %w", tarPath, err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return img, err
	}
	if len(im.Manifests) != 1 {
		return img, fmt.Errorf("%s: index.json lists %d manifests, want 1", tarPath, len(im.Manifests))
	}
	desc := im.Manifests[0]
	img.Ref = desc.Annotations["org.opencontainers.image.ref.name"]
	oci, err := idx.Image(desc.Digest)
	if err != nil {
		return img, err
	}
	if err := validate.Image(oci); err != nil {
		return img, fmt.Errorf("%s: the OCI image: %w", tarPath, err)
	}
	if img.MediaType, err = oci.MediaType(); err != nil {
		return img, err
	}
	cfg, err := oci.ConfigFile()
	if err != nil {
		return img, err
	}
	img.Config = *cfg

	// Docker's view: manifest.json, as `docker load` and `crane push FILE` read it.
	docker, err := tarball.ImageFromPath(tarPath, nil)
	if err != nil {
		return img, fmt.Errorf("%s: Docker's manifest.json: %w", tarPath, err)
	}
	if err := validate.Image(docker); err != nil {
		return img, fmt.Errorf("%s: the image manifest.json describes: %w", tarPath, err)
	}
	if err := sameBlobs(oci, docker); err != nil {
		return img, fmt.Errorf("%s: index.json and manifest.json differ: %w", tarPath, err)
	}
	if img.DockerTags, err = dockerTags(tarPath); err != nil {
		return img, err
	}

	img.Files, err = flatten(oci, filepath.Join(dir, "rootfs"), exec)
	return img, err
}

// sameBlobs reports whether two images have the same configuration and layers.
func sameBlobs(a, b v1.Image) error {
	ac, err := a.ConfigName()
	if err != nil {
		return err
	}
	bc, err := b.ConfigName()
	if err != nil {
		return err
	}
	if ac != bc {
		return fmt.Errorf("configuration %s and %s", ac, bc)
	}
	al, err := a.Layers()
	if err != nil {
		return err
	}
	bl, err := b.Layers()
	if err != nil {
		return err
	}
	if len(al) != len(bl) {
		return fmt.Errorf("%d and %d layers", len(al), len(bl))
	}
	for i := range al {
		ad, err := al[i].Digest()
		if err != nil {
			return err
		}
		bd, err := bl[i].Digest()
		if err != nil {
			return err
		}
		if ad != bd {
			return fmt.Errorf("layer %d: %s and %s", i, ad, bd)
		}
	}
	return nil
}

// dockerTags reads the RepoTags of the tarball's manifest.json.
func dockerTags(tarPath string) ([]string, error) {
	m, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(tarPath) })
	if err != nil {
		return nil, err
	}
	if len(m) != 1 {
		return nil, fmt.Errorf("%s: manifest.json describes %d images, want 1", tarPath, len(m))
	}
	return m[0].RepoTags, nil
}

// flatten lists the image's filesystem, every layer applied, and writes the files named in exec under
// dir.
func flatten(img v1.Image, dir string, exec []string) (map[string]File, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	files := map[string]File{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("the image's layers: %w", err)
		}
		name := path.Clean("/" + h.Name)
		files[name] = File{Type: h.Typeflag, Mode: h.FileInfo().Mode(), UID: h.Uid, GID: h.Gid, Size: h.Size}
		if h.Typeflag == tar.TypeReg && slices.Contains(exec, name) {
			dst := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return nil, err
			}
			f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
			if err != nil {
				return nil, err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

// untar unpacks a tarball of regular files and directories into dir.
func untar(tarPath, dir string) error {
	f, err := os.Open(tarPath)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(bufio.NewReader(f))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tarPath, err)
		}
		if !fs.ValidPath(path.Clean(h.Name)) {
			return fmt.Errorf("%s: entry %q leaves the archive", tarPath, h.Name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(path.Clean(h.Name)))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			out, err := os.Create(dst)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: entry %q is neither a file nor a directory", tarPath, h.Name)
		}
	}
}

// CheckImage returns every way img is not the image spec describes: its entrypoint, command, exposed
// ports, labels and files, a user that is not a numeric non-root ID (Kubernetes' runAsNonRoot can only
// verify a numeric one), a name tagged latest or without a tag, or a Docker tag and version label that
// disagree with the name.
func CheckImage(img Image, spec ImageSpec) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	c := img.Config.Config
	if img.Config.OS != "linux" || img.Config.Architecture == "" {
		bad("platform %s/%s, want linux/ARCH", img.Config.OS, img.Config.Architecture)
	}
	if img.MediaType != types.OCIManifestSchema1 {
		bad("manifest media type %s, want %s", img.MediaType, types.OCIManifestSchema1)
	}
	if !slices.Equal(c.Entrypoint, spec.Entrypoint) {
		bad("entrypoint %q, want %q", c.Entrypoint, spec.Entrypoint)
	}
	if !slices.Equal(c.Cmd, spec.Cmd) {
		bad("cmd %q, want %q", c.Cmd, spec.Cmd)
	}
	if got := slices.Sorted(maps.Keys(c.ExposedPorts)); !slices.Equal(got, slices.Sorted(slices.Values(spec.ExposedPorts))) {
		bad("exposed ports %q, want %q", got, spec.ExposedPorts)
	}
	uid, err := numericUser(c.User)
	switch {
	case err != nil:
		bad("user: %v", err)
	case uid == 0:
		bad("user %q is root", c.User)
	}
	for _, l := range spec.Labels {
		if c.Labels[l] == "" {
			bad("label %s is not set", l)
		}
	}

	name, tag, ok := strings.Cut(img.Ref, ":")
	switch {
	case !ok || name == "" || tag == "":
		bad("image name %q has no tag", img.Ref)
	case tag == "latest":
		bad("image name %q is tagged latest; tag it with its version", img.Ref)
	case tag != c.Labels["org.opencontainers.image.version"]:
		bad("image name %q and version label %q differ", img.Ref, c.Labels["org.opencontainers.image.version"])
	}
	if !slices.Equal(img.DockerTags, []string{img.Ref}) {
		bad("manifest.json tags %q, want [%q]", img.DockerTags, img.Ref)
	}

	for _, p := range spec.Executables {
		f, ok := img.Files[p]
		switch {
		case !ok:
			bad("%s is not in the image", p)
		case f.Type != tar.TypeReg:
			bad("%s is not a regular file", p)
		case f.Mode.Perm()&0o001 == 0:
			bad("%s is not executable by every user (mode %v)", p, f.Mode.Perm())
		case f.Mode.Perm()&0o022 != 0 || f.UID != 0:
			bad("%s can be changed by a user other than root (owner %d, mode %v)", p, f.UID, f.Mode.Perm())
		}
	}
	for _, p := range spec.Files {
		if f, ok := img.Files[p]; !ok || f.Type != tar.TypeReg || f.Size == 0 {
			bad("%s is not in the image, or empty", p)
		}
	}
	if f, ok := img.Files["/tmp"]; !ok || f.Type != tar.TypeDir || f.Mode&fs.ModeSticky == 0 || f.Mode.Perm() != 0o777 {
		bad("/tmp is not a directory with mode 1777")
	}
	return errs
}

// numericUser reads an image's user, UID or UID:GID, and refuses names.
func numericUser(user string) (int, error) {
	if user == "" {
		return 0, errors.New("not set, so containers run as root")
	}
	u, g, hasGroup := strings.Cut(user, ":")
	uid, err := strconv.Atoi(u)
	if err != nil {
		return 0, fmt.Errorf("%q is not a numeric UID", user)
	}
	if hasGroup {
		if _, err := strconv.Atoi(g); err != nil {
			return 0, fmt.Errorf("%q is not a numeric GID", user)
		}
	}
	return uid, nil
}

// CheckStaticELF returns an error unless the file is a Linux executable that needs no dynamic loader
// and no shared library: one an image without a C library can run.
func CheckStaticELF(file string) error {
	f, err := elf.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("%s is not an executable (%v)", file, f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s needs a dynamic loader", file)
		}
	}
	if libs, err := f.ImportedLibraries(); err == nil && len(libs) > 0 {
		return fmt.Errorf("%s needs shared libraries %q", file, libs)
	}
	return nil
}
