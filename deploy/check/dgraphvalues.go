package check

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// DgraphRelease is the Helm release name of Dgraph that polgraph's manifests assume (docs/deploy.md
// installs it so).
const DgraphRelease = "dgraph"

// DgraphChartVersion is the version of Dgraph's chart that dgraph-values.yaml is written for.
const DgraphChartVersion = "25.0.0-preview6"

// dgraphChartKeys are the values Dgraph's chart documents, in its README's table of parameters and its
// values.yaml (github.com/dgraph-io/charts, charts/dgraph, tag dgraph-25.0.0-preview6). A key ending in
// ".*" is a map or list the chart passes to Kubernetes as it is (toYaml), so anything under it goes.
var dgraphChartKeys = func() map[string]bool {
	keys := map[string]bool{}
	for _, k := range strings.Fields(`
		nameOverride namespaceOverride fullnameOverride
		image.registry image.repository image.tag image.pullPolicy image.pullSecrets image.debug
		global.domain global.imageRegistry global.imagePullSecrets
		global.ingress.enabled global.ingress.annotations.* global.ingress.tls.* global.ingress.ratel_hostname
		global.ingress.alpha_hostname global.ingress.ingressClassName global.ingress_grpc.enabled
		global.ingress_grpc.annotations.* global.ingress_grpc.tls.* global.ingress_grpc.alpha_grpc_hostname
		global.ingress_grpc.ingressClassName
		serviceAccount.create serviceAccount.annotations.* serviceAccount.name serviceAccount.automountServiceAccountToken
		ratel.name ratel.enabled ratel.extraAnnotations.* ratel.podLabels.* ratel.image.registry ratel.image.repository
		ratel.image.tag ratel.image.pullPolicy ratel.schedulerName ratel.replicaCount ratel.envFrom.* ratel.extraEnvs.*
		ratel.args ratel.automountServiceAccountToken ratel.service.type ratel.service.labels.* ratel.service.annotations.*
		ratel.service.loadBalancerIP ratel.service.externalTrafficPolicy ratel.service.loadBalancerSourceRanges
		ratel.ingress.enabled ratel.ingress.hostname ratel.ingress.ingressClassName ratel.ingress.annotations.*
		ratel.ingress.tls.* ratel.securityContext.enabled ratel.securityContext.fsGroup ratel.securityContext.runAsUser
		ratel.resources.* ratel.livenessProbe.* ratel.readinessProbe.* ratel.customLivenessProbe.* ratel.customReadinessProbe.*
		backups.* `) {
		keys[k] = true
	}
	// Zero and alpha share most of their keys.
	for _, c := range []string{"zero", "alpha"} {
		for _, k := range strings.Fields(`
			name metrics.enabled extraAnnotations.* podLabels.* monitorLabel updateStrategy schedulerName
			rollingUpdatePartition podManagementPolicy replicaCount terminationGracePeriodSeconds antiAffinity
			podAntiAffinitytopologyKey nodeAffinity.* envFrom.* extraEnvs.* extraFlags configFile.*
			automountServiceAccountToken service.type service.labels.* service.annotations.*
			service.publishNotReadyAddresses service.loadBalancerIP service.externalTrafficPolicy
			service.loadBalancerSourceRanges serviceHeadless.labels.* securityContext.enabled securityContext.fsGroup
			securityContext.runAsUser tls.enabled tls.files.* persistence.enabled persistence.storageClass
			persistence.accessModes persistence.size persistence.annotations.* nodeSelector.* tolerations.*
			resources.* customStartupProbe.* customLivenessProbe.* customReadinessProbe.*`) {
			keys[c+"."+k] = true
		}
		for _, p := range []string{"startupProbe", "livenessProbe", "readinessProbe"} {
			for _, k := range strings.Fields("enabled port path initialDelaySeconds periodSeconds timeoutSeconds failureThreshold successThreshold") {
				keys[c+"."+p+"."+k] = true
			}
		}
	}
	keys["zero.shardReplicaCount"] = true
	for _, k := range strings.Fields(`
		ingress.enabled ingress.hostname ingress.ingressClassName ingress.annotations.* ingress.tls.*
		ingress_grpc.enabled ingress_grpc.hostname ingress_grpc.ingressClassName ingress_grpc.annotations.* ingress_grpc.tls.*
		acl.enabled acl.file.* encryption.enabled encryption.file.* extraInitContainers.*
		initContainers.init.enabled initContainers.init.image.registry initContainers.init.image.repository
		initContainers.init.image.tag initContainers.init.image.pullPolicy initContainers.init.env.*
		initContainers.init.envFrom.* initContainers.init.command initContainers.init.resources.*`) {
		keys["alpha."+k] = true
	}
	return keys
}()

// ReadDgraphValues reads a values file; a key given twice is an error.
func ReadDgraphValues(b []byte) (map[string]any, error) {
	var v map[string]any
	if err := yaml.UnmarshalStrict(b, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// CheckDgraphValues returns every way the values are not a replicated, closed Dgraph for polgraph:
//   - a key Dgraph's chart does not document (dgraphChartKeys), which Helm would silently ignore;
//   - an image other than DgraphImage;
//   - fewer than three zeros, or an even number; zero's --replicas (shardReplicaCount) other than 3,
//     or a number of alphas that is not one group of that many;
//   - ACL off, or no HMAC secret file configured under /dgraph/acl (where the chart mounts the Secret);
//   - --security not given in the environment with an admin token from a Secret (defined before it is
//     used) and a whitelist;
//   - zero's admin HTTP left on, or turned off with a readiness probe still asking /state, which then
//     never answers;
//   - persistence off, no memory request and limit, or a limit below the request, for zero or alpha;
//   - soft anti-affinity (two replicas of a group on one node);
//   - no fullnameOverride, on which the alphas' names (and so polgraph's POLGRAPH_DGRAPH) depend.
func CheckDgraphValues(v map[string]any) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, p := range leafPaths("", v) {
		if !documentedKey(p) {
			bad("%s is not a value Dgraph's chart documents (chart %s); Helm would ignore it", p, DgraphChartVersion)
		}
	}
	if repo, tag := str(v, "image.repository"), str(v, "image.tag"); repo+":"+tag != DgraphImage {
		bad("image %s:%s, want %s (the release polgraph is tested with)", repo, tag, DgraphImage)
	}
	zeros, shard, alphas := num(v, "zero.replicaCount"), num(v, "zero.shardReplicaCount"), num(v, "alpha.replicaCount")
	if zeros < 3 || int(zeros)%2 == 0 {
		bad("zero.replicaCount %v: want an odd number, at least 3, for a Raft majority", zeros)
	}
	if shard != 3 {
		bad("zero.shardReplicaCount %v: want 3 replicas of every tablet", shard)
	}
	if alphas != shard {
		bad("alpha.replicaCount %v and zero.shardReplicaCount %v: want one group, as many alphas as replicas", alphas, shard)
	}
	if b, _ := get(v, "alpha.acl.enabled").(bool); !b {
		bad("alpha.acl.enabled is not true")
	}
	configFiles, _ := get(v, "alpha.configFile").(map[string]any)
	if len(configFiles) != 1 {
		bad("alpha.configFile: want one file (the chart reads the first by name), got %d", len(configFiles))
	}
	for name, content := range configFiles {
		var cfg map[string]any
		s, _ := content.(string)
		if err := yaml.UnmarshalStrict([]byte(s), &cfg); err != nil {
			bad("alpha.configFile.%s: %v", name, err)
			continue
		}
		secret := str(cfg, "acl.secret-file")
		if secret == "" {
			secret = str(cfg, "acl.secret_file")
		}
		if !strings.HasPrefix(secret, "/dgraph/acl/") {
			bad("alpha.configFile.%s: acl secret-file %q, want the chart's ACL Secret under /dgraph/acl/", name, secret)
		}
		if _, ok := cfg["security"]; ok {
			bad("alpha.configFile.%s sets security, which a ConfigMap would hold in clear; give it in DGRAPH_ALPHA_SECURITY", name)
		}
	}
	errs = append(errs, checkAlphaSecurity(get(v, "alpha.extraEnvs"))...)

	flags := str(v, "zero.extraFlags")
	if !regexp.MustCompile(`disable-admin-http=true`).MatchString(flags) {
		bad("zero.extraFlags %q: want --limit \"disable-admin-http=true;\" (zero's admin HTTP takes unauthenticated requests)", flags)
	} else if p := str(v, "zero.readinessProbe.path"); p == "" || p == "/state" {
		bad("zero.readinessProbe.path %q: /state is off with disable-admin-http; ask /health", p)
	}
	for _, c := range []string{"zero", "alpha"} {
		if b, _ := get(v, c+".persistence.enabled").(bool); !b {
			bad("%s.persistence.enabled is not true", c)
		}
		req, lim := str(v, c+".resources.requests.memory"), str(v, c+".resources.limits.memory")
		if req == "" || lim == "" {
			bad("%s.resources: want a memory request and a memory limit", c)
		} else if quantityLess(lim, req) {
			bad("%s.resources: the memory limit %s is below the request %s", c, lim, req)
		}
		if a := str(v, c+".antiAffinity"); a != "hard" {
			bad("%s.antiAffinity %q: want hard, so that no node holds two of them", c, a)
		}
	}
	if str(v, "fullnameOverride") == "" {
		bad("fullnameOverride is not set; the alphas' names, which polgraph is given, would follow the release name")
	}
	return errs
}

// checkAlphaSecurity wants DGRAPH_ALPHA_SECURITY among the alphas' extra environment, with a whitelist
// and token=$(VAR) where VAR comes earlier, from a Secret.
func checkAlphaSecurity(extraEnvs any) []error {
	list, _ := extraEnvs.([]any)
	fromSecret := map[string]bool{}
	for _, e := range list {
		e, _ := e.(map[string]any)
		name := str(e, "name")
		if str(e, "valueFrom.secretKeyRef.name") != "" {
			fromSecret[name] = true
		}
		if name != "DGRAPH_ALPHA_SECURITY" {
			continue
		}
		sf := superflag(str(e, "value"))
		var errs []error
		if sf["whitelist"] == "" {
			errs = append(errs, fmt.Errorf("alpha.extraEnvs: DGRAPH_ALPHA_SECURITY has no whitelist"))
		}
		m := regexp.MustCompile(`^\$\(([A-Za-z_][A-Za-z0-9_]*)\)$`).FindStringSubmatch(sf["token"])
		if m == nil || !fromSecret[m[1]] {
			errs = append(errs, fmt.Errorf("alpha.extraEnvs: DGRAPH_ALPHA_SECURITY token %q: want $(VAR), VAR from a Secret and set before it", sf["token"]))
		}
		return errs
	}
	return []error{fmt.Errorf("alpha.extraEnvs: no DGRAPH_ALPHA_SECURITY (admin token and whitelist)")}
}

// DgraphAlphaAddrs are the gRPC addresses of the alphas the values make: each pod's stable name under
// the chart's headless Service.
func DgraphAlphaAddrs(v map[string]any) []string {
	full, name := str(v, "fullnameOverride"), str(v, "alpha.name")
	if name == "" {
		name = "alpha"
	}
	var out []string
	for i := 0; i < int(num(v, "alpha.replicaCount")); i++ {
		out = append(out, fmt.Sprintf("%s-%s-%d.%s-%s-headless:9080", full, name, i, full, name))
	}
	return out
}

// DgraphPodLabels are the labels the chart gives the pods of each component (less `chart`, which
// changes with the chart's version), for release.
func DgraphPodLabels(v map[string]any, release string) map[string]map[string]string {
	app := str(v, "nameOverride")
	if app == "" {
		app = "dgraph" // the chart's name
	}
	out := map[string]map[string]string{}
	for _, c := range []string{"zero", "alpha"} {
		name := str(v, c+".name")
		if name == "" {
			name = c
		}
		out[c] = map[string]string{"app": app, "release": release, "component": name}
	}
	return out
}

// leafPaths lists the dotted paths of a map's values that are not maps themselves, sorted.
func leafPaths(prefix string, v any) []string {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return []string{prefix}
	}
	var out []string
	for k, sub := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, leafPaths(p, sub)...)
	}
	sort.Strings(out)
	return out
}

// documentedKey reports whether the chart documents a value's path.
func documentedKey(path string) bool {
	if dgraphChartKeys[path] {
		return true
	}
	parts := strings.Split(path, ".")
	for i := range parts {
		if dgraphChartKeys[strings.Join(parts[:i+1], ".")+".*"] {
			return true
		}
	}
	return false
}

// get follows a dotted path into nested maps; nil when it is not there.
func get(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any, path string) string {
	s, _ := get(v, path).(string)
	return s
}

func num(v any, path string) float64 {
	n, _ := get(v, path).(float64)
	return n
}

// quantityLess reports whether Kubernetes quantity a is less than b; a quantity that does not parse is
// less than any.
func quantityLess(a, b string) bool {
	qa, err := resource.ParseQuantity(a)
	if err != nil {
		return true
	}
	qb, err := resource.ParseQuantity(b)
	return err == nil && qa.Cmp(qb) < 0
}
