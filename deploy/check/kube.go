package check

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// RenderKustomization builds the kustomization in dir, as `kubectl kustomize dir` does, and returns
// the objects as a YAML stream.
func RenderKustomization(dir string) ([]byte, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, err
	}
	return m.AsYaml()
}

// kubeScheme knows the kinds polgraph's manifests may hold.
var kubeScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// DecodeStrict decodes every document of a YAML stream into its Kubernetes API type, as the API server
// would with field validation Strict: a field the type does not have, a field given twice or a kind it
// does not know is an error.
func DecodeStrict(stream []byte) ([]runtime.Object, error) {
	ser := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, kubeScheme, kubeScheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(stream)))
	var objs []runtime.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, gvk, err := ser.Decode(doc, nil, nil)
		if err != nil {
			name := ""
			if gvk != nil {
				name = gvk.Kind + " "
			}
			return nil, fmt.Errorf("%s%s: %w", name, objectName(doc), err)
		}
		objs = append(objs, obj)
	}
}

// KubeSpec is what CheckKube holds polgraph's manifests to.
type KubeSpec struct {
	Replicas int32
	// Secrets are the Secrets, and their keys, the operator makes (docs/deploy.md): references to any
	// other are mistakes.
	Secrets map[string][]string
	// DgraphAddrs are the alphas' gRPC addresses that the Dgraph release's values make
	// (DgraphValues.AlphaAddrs): POLGRAPH_DGRAPH must list them all.
	DgraphAddrs []string
	// DgraphPods are the labels of the Dgraph release's pods, by component (alpha, zero), that the
	// Dgraph disruption budgets must select.
	DgraphPods map[string]map[string]string
}

// CheckKube returns every way the objects are not a sound deployment of polgraph:
//   - one Deployment with spec.Replicas replicas, a selector that selects its own pods, and a way to
//     spread them over nodes (topology spread constraints or pod anti-affinity on the hostname);
//   - every container with startup, readiness and liveness probes: readiness the native gRPC probe on
//     the gRPC port for polgraph.v1.GraphService; liveness one that does not follow Dgraph (no gRPC
//     health probe: polgraph reports every service NOT_SERVING while Dgraph is down, and a restart
//     would not help);
//   - CPU and memory requests and limits on every container, limits no lower than requests, and
//     GOMEMLIMIT below the memory limit;
//   - non-root, no privilege escalation, no capabilities, a read-only root filesystem;
//   - an image pinned to a tag (not latest) or a digest;
//   - environment from ConfigMaps that are among the objects, and Secrets and keys that spec names;
//     POLGRAPH_DGRAPH listing every alpha;
//   - a PodDisruptionBudget that selects the Deployment's pods and leaves one to evict;
//   - Services whose selectors select the Deployment's pods and whose ports name container ports;
//   - for each Dgraph component in spec, a PodDisruptionBudget selecting its pods, one at a time.
func CheckKube(objs []runtime.Object, spec KubeSpec) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var deps []*appsv1.Deployment
	var pdbs []*policyv1.PodDisruptionBudget
	var svcs []*corev1.Service
	configMaps := map[string]*corev1.ConfigMap{}
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			deps = append(deps, o)
		case *policyv1.PodDisruptionBudget:
			pdbs = append(pdbs, o)
		case *corev1.Service:
			svcs = append(svcs, o)
		case *corev1.ConfigMap:
			configMaps[o.Name] = o
		default:
			bad("unexpected object %T", o)
		}
	}
	if len(deps) != 1 {
		bad("%d Deployments, want 1", len(deps))
		return errs
	}
	d := deps[0]
	pod := labels.Set(d.Spec.Template.Labels)
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(pod) {
		bad("Deployment %s: selector %v does not select its own pods %v", d.Name, d.Spec.Selector, pod)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != spec.Replicas {
		bad("Deployment %s: replicas %v, want %d", d.Name, d.Spec.Replicas, spec.Replicas)
	}
	if !spreadsOverNodes(d.Spec.Template.Spec, pod) {
		bad("Deployment %s: nothing spreads its pods over nodes (topologySpreadConstraints or podAntiAffinity on kubernetes.io/hostname)", d.Name)
	}
	ps := d.Spec.Template.Spec
	if ps.SecurityContext == nil || ps.SecurityContext.RunAsNonRoot == nil || !*ps.SecurityContext.RunAsNonRoot {
		bad("Deployment %s: the pod does not run as non-root (securityContext.runAsNonRoot)", d.Name)
	}
	if len(ps.Containers) == 0 {
		bad("Deployment %s has no container", d.Name)
	}
	for _, c := range ps.Containers {
		errs = append(errs, checkContainer(d.Name, c, configMaps, spec)...)
	}

	var own []*policyv1.PodDisruptionBudget
	for _, p := range pdbs {
		s, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil || s.Empty() {
			bad("PodDisruptionBudget %s: selector %v selects nothing, or everything", p.Name, p.Spec.Selector)
			continue
		}
		if s.Matches(pod) {
			own = append(own, p)
		}
	}
	if len(own) != 1 {
		bad("%d PodDisruptionBudgets select Deployment %s's pods %v, want 1", len(own), d.Name, pod)
	}
	for _, p := range own {
		switch {
		case p.Spec.MinAvailable != nil && p.Spec.MaxUnavailable == nil:
			if v := p.Spec.MinAvailable; v.Type != 0 || v.IntVal < 1 || v.IntVal >= spec.Replicas {
				bad("PodDisruptionBudget %s: minAvailable %s, want at least 1 and fewer than the %d replicas (else no drain can evict one)", p.Name, v.String(), spec.Replicas)
			}
		default:
			bad("PodDisruptionBudget %s: want minAvailable alone", p.Name)
		}
	}
	for component, podLabels := range spec.DgraphPods {
		var found bool
		for _, p := range pdbs {
			if s, err := metav1.LabelSelectorAsSelector(p.Spec.Selector); err == nil && !s.Empty() && s.Matches(labels.Set(podLabels)) {
				found = true
				if v := p.Spec.MaxUnavailable; v == nil || v.Type != 0 || v.IntVal != 1 {
					bad("PodDisruptionBudget %s: want maxUnavailable 1 for Dgraph's %ss (Raft keeps a majority)", p.Name, component)
				}
			}
		}
		if !found {
			bad("no PodDisruptionBudget selects Dgraph's %s pods %v", component, podLabels)
		}
	}

	if len(svcs) == 0 {
		bad("no Service")
	}
	for _, s := range svcs {
		if len(s.Spec.Selector) == 0 || !labels.SelectorFromSet(s.Spec.Selector).Matches(pod) {
			bad("Service %s: selector %v does not select Deployment %s's pods %v", s.Name, s.Spec.Selector, d.Name, pod)
		}
		for _, p := range s.Spec.Ports {
			if !namesContainerPort(ps.Containers, p.TargetPort.String()) {
				bad("Service %s: port %s targets %s, which no container has", s.Name, p.Name, p.TargetPort.String())
			}
		}
	}
	return errs
}

// checkContainer holds one container of the Deployment to CheckKube's rules.
func checkContainer(dep string, c corev1.Container, configMaps map[string]*corev1.ConfigMap, spec KubeSpec) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("Deployment %s, container %s: "+format, append([]any{dep, c.Name}, args...)...))
	}
	grpcPort := int32(0)
	for _, p := range c.Ports {
		if p.Name == "grpc" {
			grpcPort = p.ContainerPort
		}
	}
	if grpcPort == 0 {
		bad("no port named grpc")
	}
	switch r := c.ReadinessProbe; {
	case r == nil:
		bad("no readiness probe")
	case r.GRPC == nil || r.GRPC.Port != grpcPort || r.GRPC.Service == nil || *r.GRPC.Service != GraphServiceHealth:
		bad("readiness probe %s: want the gRPC probe on port %d for %s", probeString(r), grpcPort, GraphServiceHealth)
	}
	switch l := c.LivenessProbe; {
	case l == nil:
		bad("no liveness probe")
	case l.GRPC != nil:
		bad("liveness probe %s follows Dgraph: polgraph reports every gRPC health service NOT_SERVING while Dgraph does not answer, so every replica would be restarted; probe the port (tcpSocket)", probeString(l))
	case l.HTTPGet != nil && strings.HasPrefix(l.HTTPGet.Path, "/healthz"):
		bad("liveness probe %s follows Dgraph (/healthz is 503 while Dgraph does not answer)", probeString(l))
	case l.TCPSocket == nil && l.HTTPGet == nil && l.Exec == nil:
		bad("liveness probe %s has no handler", probeString(l))
	}
	if c.StartupProbe == nil {
		bad("no startup probe")
	}

	req, lim := c.Resources.Requests, c.Resources.Limits
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		rq, okr := req[r]
		lm, okl := lim[r]
		switch {
		case !okr || !okl:
			bad("resources: want both a request and a limit of %s", r)
		case lm.Cmp(rq) < 0:
			bad("resources: the %s limit %s is below the request %s", r, lm.String(), rq.String())
		}
	}
	memLimit, hasLimit := lim[corev1.ResourceMemory]
	gomem := ""
	for _, e := range c.Env {
		if e.Name == "GOMEMLIMIT" {
			gomem = e.Value
		}
	}
	if q, err := resource.ParseQuantity(strings.TrimSuffix(strings.ReplaceAll(gomem, "iB", "i"), "B")); err != nil || (hasLimit && q.Cmp(memLimit) >= 0) {
		bad("GOMEMLIMIT %q: want a size below the memory limit %s", gomem, memLimit.String())
	}

	sc := c.SecurityContext
	switch {
	case sc == nil:
		bad("no securityContext")
	default:
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			bad("the root filesystem is not read-only")
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			bad("privilege escalation is allowed")
		}
		if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
			bad("capabilities are not all dropped")
		}
		if sc.Privileged != nil && *sc.Privileged {
			bad("privileged")
		}
		if sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			bad("runs as root")
		}
	}

	if !pinnedImage(c.Image) {
		bad("image %q is not pinned to a tag or a digest", c.Image)
	}

	env := map[string]string{}
	for _, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil:
			cm, ok := configMaps[from.ConfigMapRef.Name]
			if !ok {
				bad("envFrom names ConfigMap %s, which is not among the objects", from.ConfigMapRef.Name)
				continue
			}
			for k, v := range cm.Data {
				env[k] = v
			}
		case from.SecretRef != nil:
			if _, ok := spec.Secrets[from.SecretRef.Name]; !ok {
				bad("envFrom names Secret %s, which the operator is not told to make", from.SecretRef.Name)
			}
		}
	}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if e.ValueFrom == nil {
			continue
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil && !slices.Contains(spec.Secrets[r.Name], r.Key) {
			bad("%s comes from Secret %s, key %s, which the operator is not told to make", e.Name, r.Name, r.Key)
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			if cm, ok := configMaps[r.Name]; !ok || cm.Data[r.Key] == "" {
				bad("%s comes from ConfigMap %s, key %s, which is not among the objects", e.Name, r.Name, r.Key)
			}
		}
	}
	if got := strings.Split(env["POLGRAPH_DGRAPH"], ","); !sameSet(got, spec.DgraphAddrs) {
		bad("POLGRAPH_DGRAPH %q, want every alpha of the Dgraph release: %q", env["POLGRAPH_DGRAPH"], strings.Join(spec.DgraphAddrs, ","))
	}
	if a := env["POLGRAPH_ADDR"]; !strings.HasPrefix(a, "0.0.0.0:") && !strings.HasPrefix(a, ":") {
		bad("POLGRAPH_ADDR %q: want all interfaces, or the probes and the Service cannot reach it", a)
	}
	return errs
}

// spreadsOverNodes reports whether a pod spec spreads pods with these labels over nodes.
func spreadsOverNodes(ps corev1.PodSpec, pod labels.Set) bool {
	selects := func(ls *metav1.LabelSelector) bool {
		s, err := metav1.LabelSelectorAsSelector(ls)
		return err == nil && !s.Empty() && s.Matches(pod)
	}
	for _, c := range ps.TopologySpreadConstraints {
		if c.TopologyKey == "kubernetes.io/hostname" && c.MaxSkew >= 1 && selects(c.LabelSelector) {
			return true
		}
	}
	if a := ps.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if t.TopologyKey == "kubernetes.io/hostname" && selects(t.LabelSelector) {
				return true
			}
		}
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if w.PodAffinityTerm.TopologyKey == "kubernetes.io/hostname" && selects(w.PodAffinityTerm.LabelSelector) {
				return true
			}
		}
	}
	return false
}

// namesContainerPort reports whether a Service's targetPort (a name or a number) is a container's port.
func namesContainerPort(cs []corev1.Container, target string) bool {
	for _, c := range cs {
		for _, p := range c.Ports {
			if p.Name == target || fmt.Sprint(p.ContainerPort) == target {
				return true
			}
		}
	}
	return false
}

// pinnedImage reports whether an image reference names a tag other than latest, or a digest.
func pinnedImage(ref string) bool {
	if strings.Contains(ref, "@sha256:") {
		return true
	}
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return false // no tag; a colon before a slash is a registry's port
	}
	return ref[i+1:] != "" && ref[i+1:] != "latest"
}

// probeString describes a probe for messages.
func probeString(p *corev1.Probe) string {
	switch {
	case p.GRPC != nil:
		s := `""`
		if p.GRPC.Service != nil {
			s = fmt.Sprintf("%q", *p.GRPC.Service)
		}
		return fmt.Sprintf("grpc port %d service %s", p.GRPC.Port, s)
	case p.HTTPGet != nil:
		return "httpGet " + p.HTTPGet.Path
	case p.TCPSocket != nil:
		return "tcpSocket " + p.TCPSocket.Port.String()
	case p.Exec != nil:
		return fmt.Sprintf("exec %q", p.Exec.Command)
	}
	return "without a handler"
}

// sameSet reports whether two lists hold the same strings, in any order.
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// objectName is the metadata.name a YAML document gives, for messages.
func objectName(doc []byte) string {
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "  name: ") {
			return strings.TrimSpace(strings.TrimPrefix(l, "  name: "))
		}
	}
	return ""
}
