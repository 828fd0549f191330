package check

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// kubeSecrets are the Secrets docs/deploy.md tells the operator to make, with their keys.
var kubeSecrets = map[string][]string{
	"polgraph-dgraph":    {"password"},
	"dgraph-admin-token": {"token"},
}

func dgraphValues(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy/k8s/dgraph-values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := ReadDgraphValues(b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// kubeSpec is what deploy/k8s is held to, with Dgraph's names from dgraph-values.yaml.
func kubeSpec(t *testing.T) KubeSpec {
	v := dgraphValues(t)
	return KubeSpec{Replicas: 2, Secrets: kubeSecrets, DgraphAddrs: DgraphAlphaAddrs(v), DgraphPods: DgraphPodLabels(v, DgraphRelease)}
}

// renderedKube is deploy/k8s, rendered and decoded.
func renderedKube(t *testing.T) []runtime.Object {
	t.Helper()
	out, err := RenderKustomization(filepath.Join(root, "deploy/k8s"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := DecodeStrict(out)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func TestKube(t *testing.T) {
	t.Parallel()
	objs := renderedKube(t)
	if len(objs) != 6 {
		t.Errorf("%d objects, want 6 (ConfigMap, Service, Deployment, 3 PodDisruptionBudgets)", len(objs))
	}
	for _, err := range CheckKube(objs, kubeSpec(t)) {
		t.Error(err)
	}
}

// TestKubectlRendersTheSame compares the in-process rendering with `kubectl kustomize`, which `kubectl
// apply -k` uses, when kubectl is installed.
func TestKubectlRendersTheSame(t *testing.T) {
	t.Parallel()
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed; the in-process kustomize is checked alone")
	}
	out, err := exec.Command(kubectl, "kustomize", filepath.Join(root, "deploy/k8s")).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v", err)
	}
	theirs, err := DecodeStrict(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(byKindAndName(renderedKube(t)), byKindAndName(theirs)); diff != "" {
		t.Errorf("kubectl kustomize differs (-krusty +kubectl):\n%s", diff)
	}
}

// byKindAndName indexes objects by kind and name (kustomize versions order them differently).
func byKindAndName(objs []runtime.Object) map[string]runtime.Object {
	out := map[string]runtime.Object{}
	for _, o := range objs {
		m, err := meta.Accessor(o)
		if err != nil {
			panic(err)
		}
		out[fmt.Sprintf("%T %s", o, m.GetName())] = o
	}
	return out
}

// TestDecodeStrictRefuses: fields the API does not have, given twice, or kinds it does not know.
func TestDecodeStrictRefuses(t *testing.T) {
	t.Parallel()
	out, err := RenderKustomization(filepath.Join(root, "deploy/k8s"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	for _, tc := range []struct{ name, old, new string }{
		{"an unknown field", "  replicas: 2\n", "  replicas: 2\n  replica: 2\n"},
		{"a misplaced field", "      automountServiceAccountToken: false\n", "      automountServiceAccountToken: false\n      readOnlyRootFilesystem: true\n"},
		{"a field twice", "  minAvailable: 1\n", "  minAvailable: 1\n  minAvailable: 2\n"},
		{"a wrong type", "  replicas: 2\n", "  replicas: two\n"},
		{"an unknown kind", "kind: PodDisruptionBudget", "kind: PodDisruptionBudgets"},
		{"an unknown version", "apiVersion: policy/v1\n", "apiVersion: policy/v2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.old) {
				t.Fatalf("the rendered base has no %q to change", tc.old)
			}
			if _, err := DecodeStrict([]byte(strings.Replace(src, tc.old, tc.new, 1))); err == nil {
				t.Errorf("%q → %q decoded without an error", tc.old, tc.new)
			}
		})
	}
}

// TestCheckKubeFindsProblems changes the decoded objects one way at a time.
func TestCheckKubeFindsProblems(t *testing.T) {
	t.Parallel()
	spec := kubeSpec(t)
	deployment := func(f func(*appsv1.Deployment)) func([]runtime.Object) {
		return func(objs []runtime.Object) {
			for _, o := range objs {
				if d, ok := o.(*appsv1.Deployment); ok {
					f(d)
				}
			}
		}
	}
	container := func(f func(*corev1.Container)) func([]runtime.Object) {
		return deployment(func(d *appsv1.Deployment) { f(&d.Spec.Template.Spec.Containers[0]) })
	}
	pdb := func(name string, f func(*policyv1.PodDisruptionBudget)) func([]runtime.Object) {
		return func(objs []runtime.Object) {
			for _, o := range objs {
				if p, ok := o.(*policyv1.PodDisruptionBudget); ok && p.Name == name {
					f(p)
				}
			}
		}
	}
	service := func(f func(*corev1.Service)) func([]runtime.Object) {
		return func(objs []runtime.Object) {
			for _, o := range objs {
				if s, ok := o.(*corev1.Service); ok {
					f(s)
				}
			}
		}
	}
	configMap := func(f func(*corev1.ConfigMap)) func([]runtime.Object) {
		return func(objs []runtime.Object) {
			for _, o := range objs {
				if c, ok := o.(*corev1.ConfigMap); ok {
					f(c)
				}
			}
		}
	}
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name   string
		change func([]runtime.Object)
		want   string
	}{
		{"a PDB with a wrong selector", pdb("polgraph", func(p *policyv1.PodDisruptionBudget) {
			p.Spec.Selector.MatchLabels["app.kubernetes.io/name"] = "polgraf"
		}), "0 PodDisruptionBudgets select"},
		{"a PDB that blocks drains", pdb("polgraph", func(p *policyv1.PodDisruptionBudget) {
			v := intstr.FromInt32(2)
			p.Spec.MinAvailable = &v
		}), "fewer than the 2 replicas"},
		{"a Dgraph PDB with the chart's old labels", pdb("dgraph-alpha", func(p *policyv1.PodDisruptionBudget) {
			p.Spec.Selector.MatchLabels["app"] = "dgraph-alpha"
		}), "Dgraph's alpha pods"},
		{"a Dgraph PDB letting two go", pdb("dgraph-zero", func(p *policyv1.PodDisruptionBudget) {
			v := intstr.FromInt32(2)
			p.Spec.MaxUnavailable = &v
		}), "maxUnavailable 1 for Dgraph's zeros"},
		{"a Service with a wrong selector", service(func(s *corev1.Service) { s.Spec.Selector["app.kubernetes.io/component"] = "web" }), "Service polgraph: selector"},
		{"a Service to no port", service(func(s *corev1.Service) { s.Spec.Ports[0].TargetPort = intstr.FromString("gprc") }), "targets gprc"},
		{"one replica", deployment(func(d *appsv1.Deployment) { n := int32(1); d.Spec.Replicas = &n }), "replicas"},
		{"no spreading", deployment(func(d *appsv1.Deployment) { d.Spec.Template.Spec.TopologySpreadConstraints = nil }), "spreads its pods"},
		{"a selector for other pods", deployment(func(d *appsv1.Deployment) { d.Spec.Selector.MatchLabels["tier"] = "x" }), "does not select its own pods"},
		{"root allowed", deployment(func(d *appsv1.Deployment) { d.Spec.Template.Spec.SecurityContext.RunAsNonRoot = nil }), "non-root"},
		{"no readiness probe", container(func(c *corev1.Container) { c.ReadinessProbe = nil }), "no readiness probe"},
		{"readiness on the empty service", container(func(c *corev1.Container) { c.ReadinessProbe.GRPC.Service = nil }), "readiness probe"},
		{"readiness on the HTTP port", container(func(c *corev1.Container) { c.ReadinessProbe.GRPC.Port = 8080 }), "readiness probe"},
		{"no liveness probe", container(func(c *corev1.Container) { c.LivenessProbe = nil }), "no liveness probe"},
		{"liveness following Dgraph", container(func(c *corev1.Container) {
			c.LivenessProbe.TCPSocket = nil
			c.LivenessProbe.GRPC = &corev1.GRPCAction{Port: 50051, Service: str("")}
		}), "follows Dgraph"},
		{"no startup probe", container(func(c *corev1.Container) { c.StartupProbe = nil }), "no startup probe"},
		{"no limits", container(func(c *corev1.Container) { c.Resources.Limits = nil }), "want both a request and a limit"},
		{"no CPU request", container(func(c *corev1.Container) { delete(c.Resources.Requests, corev1.ResourceCPU) }), "a request and a limit of cpu"},
		{"a limit below the request", container(func(c *corev1.Container) {
			c.Resources.Requests[corev1.ResourceMemory] = c.Resources.Limits[corev1.ResourceMemory].DeepCopy()
			c.Resources.Limits[corev1.ResourceMemory] = c.Resources.Requests[corev1.ResourceCPU].DeepCopy()
		}), "below the request"},
		{"GOMEMLIMIT over the limit", container(func(c *corev1.Container) {
			for i := range c.Env {
				if c.Env[i].Name == "GOMEMLIMIT" {
					c.Env[i].Value = "4GiB"
				}
			}
		}), "GOMEMLIMIT"},
		{"a writable root", container(func(c *corev1.Container) { f := false; c.SecurityContext.ReadOnlyRootFilesystem = &f }), "read-only"},
		{"escalation", container(func(c *corev1.Container) { c.SecurityContext.AllowPrivilegeEscalation = nil }), "escalation"},
		{"capabilities", container(func(c *corev1.Container) { c.SecurityContext.Capabilities = nil }), "capabilities"},
		{"image latest", container(func(c *corev1.Container) { c.Image = "registry.example.org:5000/polgraph:latest" }), "not pinned"},
		{"image untagged", container(func(c *corev1.Container) { c.Image = "registry.example.org:5000/polgraph" }), "not pinned"},
		{"a Secret nobody makes", container(func(c *corev1.Container) { c.Env[0].ValueFrom.SecretKeyRef.Name = "polgraph-secrets" }), "Secret polgraph-secrets"},
		{"a ConfigMap that is not there", container(func(c *corev1.Container) { c.EnvFrom[0].ConfigMapRef.Name = "polgraph" }), "ConfigMap polgraph,"},
		{"an alpha missing", configMap(func(c *corev1.ConfigMap) {
			c.Data["POLGRAPH_DGRAPH"] = strings.Join(spec.DgraphAddrs[:2], ",")
		}), "POLGRAPH_DGRAPH"},
		{"the Dgraph Service instead of the alphas", configMap(func(c *corev1.ConfigMap) { c.Data["POLGRAPH_DGRAPH"] = "dgraph-alpha:9080" }), "POLGRAPH_DGRAPH"},
		{"listening on loopback", configMap(func(c *corev1.ConfigMap) { c.Data["POLGRAPH_ADDR"] = "127.0.0.1:50051" }), "POLGRAPH_ADDR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := renderedKube(t)
			tc.change(objs)
			if errs := CheckKube(objs, spec); !anyContains(errs, tc.want) {
				t.Errorf("want a problem with %q; got %v", tc.want, errs)
			}
		})
	}
}

func TestDgraphValues(t *testing.T) {
	t.Parallel()
	for _, err := range CheckDgraphValues(dgraphValues(t)) {
		t.Error(err)
	}
}

// TestCheckDgraphValuesFindsProblems changes dgraph-values.yaml one line at a time.
func TestCheckDgraphValuesFindsProblems(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(root, "deploy/k8s/dgraph-values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for _, tc := range []struct{ name, old, new, want string }{
		{"a misspelt key", "  replicaCount: 3\n  antiAffinity", "  replicasCount: 3\n  antiAffinity", "alpha.replicasCount is not a value"},
		{"a key the chart lacks", "fullnameOverride: dgraph\n", "fullnameOverride: dgraph\nalphaReplicas: 3\n", "alphaReplicas is not a value"},
		{"another Dgraph", "  tag: v25.0.0\n", "  tag: v24.1.4\n", "image dgraph/dgraph:v24.1.4"},
		{"two zeros", "  replicaCount: 3\n  # Zero's --replicas", "  replicaCount: 2\n  # Zero's --replicas", "zero.replicaCount 2"},
		{"no replication", "  shardReplicaCount: 3\n", "  shardReplicaCount: 1\n", "zero.shardReplicaCount 1"},
		{"two groups", "alpha:\n  replicaCount: 3\n", "alpha:\n  replicaCount: 6\n", "alpha.replicaCount 6"},
		{"ACL off", "  acl:\n    enabled: true\n", "  acl:\n    enabled: false\n", "alpha.acl.enabled"},
		{"the HMAC elsewhere", "secret-file: /dgraph/acl/hmac_secret_file", "secret-file: /etc/hmac", "acl secret-file"},
		{"the token in the ConfigMap", "      telemetry:\n", "      security:\n        token: secret\n      telemetry:\n", "sets security"},
		{"the token not from the Secret", "token=$(DGRAPH_ADMIN_TOKEN);", "token=secret;", "DGRAPH_ALPHA_SECURITY token"},
		{"the token from a variable not set", "token=$(DGRAPH_ADMIN_TOKEN);", "token=$(ADMIN_TOKEN);", "DGRAPH_ALPHA_SECURITY token"},
		{"no whitelist", " whitelist=10.0.0.0/8,172.16.0.0/12,192.168.0.0/16;", "", "no whitelist"},
		{"zero's admin HTTP on", `'--limit "disable-admin-http=true;" `, `'`, "disable-admin-http"},
		{"readiness on /state", "    path: /health\n", "    path: /state\n", "zero.readinessProbe.path"},
		{"no persistence", "    enabled: true\n    accessModes: [ReadWriteOnce]\n    # A graph", "    enabled: false\n    accessModes: [ReadWriteOnce]\n    # A graph", "alpha.persistence.enabled"},
		{"no memory limit", "    limits:\n      memory: 6Gi\n", "", "alpha.resources"},
		{"a limit below the request", "      memory: 6Gi\n", "      memory: 1Gi\n", "below the request"},
		{"soft anti-affinity", "alpha:\n  replicaCount: 3\n  antiAffinity: hard\n", "alpha:\n  replicaCount: 3\n  antiAffinity: soft\n", "alpha.antiAffinity"},
		{"no fullnameOverride", "fullnameOverride: dgraph\n", "", "fullnameOverride"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.old) {
				t.Fatalf("dgraph-values.yaml has no %q to change", tc.old)
			}
			v, err := ReadDgraphValues([]byte(strings.Replace(src, tc.old, tc.new, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if errs := CheckDgraphValues(v); !anyContains(errs, tc.want) {
				t.Errorf("want a problem with %q; got %v", tc.want, errs)
			}
		})
	}
	if _, err := ReadDgraphValues([]byte(src + "image:\n  tag: v25.0.0\n")); err == nil {
		t.Error("a key given twice was read without an error")
	}
}

// TestDocsOverlay renders the overlay docs/deploy.md shows, in a folder at the place it names: it must
// build, pass CheckKube, and run the image and namespace it sets.
func TestDocsOverlay(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(root, "docs/deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	const marker = "```yaml\n# deploy/overlays/prod/kustomization.yaml\n"
	_, rest, ok := strings.Cut(string(b), marker)
	if !ok {
		t.Fatalf("docs/deploy.md shows no %q block", marker)
	}
	overlay, _, _ := strings.Cut(rest, "```")
	// The overlay sits two folders below deploy/, beside a copy of the base.
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "deploy/k8s"), os.DirFS(filepath.Join(root, "deploy/k8s"))); err != nil {
		t.Fatal(err)
	}
	prod := filepath.Join(dir, "deploy/overlays/prod")
	if err := os.MkdirAll(prod, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prod, "kustomization.yaml"), []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := RenderKustomization(prod)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := DecodeStrict(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range CheckKube(objs, kubeSpec(t)) {
		t.Error(err)
	}
	for _, o := range objs {
		m, _ := meta.Accessor(o)
		if m.GetNamespace() != "polgraph" {
			t.Errorf("%T %s: namespace %q, want polgraph", o, m.GetName(), m.GetNamespace())
		}
		if d, ok := o.(*appsv1.Deployment); ok {
			if got := d.Spec.Template.Spec.Containers[0].Image; got != "registry.example.org/polgraph:1a2b3c4" {
				t.Errorf("the overlay runs %q", got)
			}
		}
	}
}
