package deploycheck

import (
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A service of ours: its Deployment, Service and container share the
// name; cmd is its main package, addrVar the variable it listens on.
type service struct {
	name, cmd, addrVar string
}

var services = []service{
	{"fuel-service", "services/fuel/cmd/fuel-service", "FUEL_ADDR"},
	{"docqa-service", "services/docqa/cmd/docqa-service", "DOCQA_ADDR"},
}

const gateway = "gateway"

func mustContainer(tb testing.TB, d *appsv1.Deployment) corev1.Container {
	tb.Helper()
	if d == nil {
		tb.Fatal("no such Deployment")
	}
	cs := d.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != d.Name {
		tb.Fatalf("%s: containers %v, want one named %s", d.Name, cs, d.Name)
	}
	return cs[0]
}

// envOf returns a container's variables; one from a Secret has the value
// "". envFrom is refused: each variable is named, so each can be checked.
func envOf(tb testing.TB, c corev1.Container) map[string]string {
	tb.Helper()
	if len(c.EnvFrom) > 0 {
		tb.Errorf("%s: envFrom %v: name each variable", c.Name, c.EnvFrom)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		if _, dup := env[e.Name]; dup {
			tb.Errorf("%s: %s set twice", c.Name, e.Name)
		}
		env[e.Name] = e.Value
	}
	return env
}

// portNumber resolves a probe's or Service's port (a number or a port name
// of the container).
func portNumber(tb testing.TB, c corev1.Container, p intstr.IntOrString) int32 {
	tb.Helper()
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	tb.Errorf("%s: no container port named %q", c.Name, p.StrVal)
	return 0
}

// listenPort is the port of a listen address (":8082", "0.0.0.0:8082").
func listenPort(tb testing.TB, addr string) int32 {
	tb.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		tb.Errorf("listen address %q: %v", addr, err)
		return 0
	}
	n, err := strconv.ParseInt(port, 10, 32)
	if err != nil {
		tb.Errorf("listen address %q: %v", addr, err)
	}
	return int32(n)
}

// selects reports whether sel selects the pods of d.
func selects(tb testing.TB, sel *metav1.LabelSelector, d *appsv1.Deployment) bool {
	tb.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		tb.Errorf("selector %v: %v", sel, err)
		return false
	}
	return !s.Empty() && s.Matches(labels.Set(d.Spec.Template.Labels))
}

func TestPodsAreHardened(t *testing.T) {
	b := mustRenderBase(t)
	for name, d := range b.deployments {
		pod := d.Spec.Template.Spec
		psc := pod.SecurityContext
		if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
			t.Errorf("%s: pod without runAsNonRoot", name)
		}
		// The images' user is "nonroot" by name: the kubelet checks
		// runAsNonRoot only against a number.
		if psc == nil || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
			t.Errorf("%s: pod without a non-zero runAsUser", name)
		}
		if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("%s: pod without the RuntimeDefault seccomp profile", name)
		}
		if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
			t.Errorf("%s: the service account token is mounted; nothing here talks to the API server", name)
		}
		for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
			sc := c.SecurityContext
			if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
				t.Errorf("%s/%s: root file system not read-only", name, c.Name)
			}
			if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				t.Errorf("%s/%s: privilege escalation allowed", name, c.Name)
			}
			if sc == nil || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
				t.Errorf("%s/%s: capabilities not all dropped", name, c.Name)
			}
			for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				req, lim := c.Resources.Requests[res], c.Resources.Limits[res]
				if req.IsZero() || lim.IsZero() || req.Cmp(lim) > 0 {
					t.Errorf("%s/%s: %s request %s, limit %s: want both, request at most limit", name, c.Name, res, req.String(), lim.String())
				}
			}
			if c.LivenessProbe == nil || c.ReadinessProbe == nil {
				t.Errorf("%s/%s: needs a liveness and a readiness probe", name, c.Name)
			}
		}
	}
}

// Secrets are referenced by name only: none is in the base, and each one
// named is one the README tells the operator to create (or says who does).
func TestSecretsAreReferencedNotCommitted(t *testing.T) {
	b := mustRenderBase(t)
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, k8s, _ := strings.Cut(string(readme), "### Kubernetes")
	k8s, _, _ = strings.Cut(k8s, "\n## ")
	named := map[string]bool{}
	for _, d := range b.deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					named[e.ValueFrom.SecretKeyRef.Name] = true
				}
			}
		}
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Secret != nil {
				named[v.Secret.SecretName] = true
			}
		}
	}
	if len(named) == 0 {
		t.Fatal("no Secret referenced: where do the database URL and the keys come from?")
	}
	for name := range named {
		if !strings.Contains(k8s, "`"+name+"`") {
			t.Errorf("Secret %s is not named in the README's Kubernetes section", name)
		}
	}
}

// Each of our services' probes asks a GET route its code registers, on the
// port it listens on: liveness /livez, readiness /readyz, and for docqa a
// startup probe on /readyz, which is 503 until its PDF engine is compiled.
func TestServiceProbesAskServedRoutes(t *testing.T) {
	b := mustRenderBase(t)
	for _, s := range services {
		t.Run(s.name, func(t *testing.T) {
			c := mustContainer(t, b.deployments[s.name])
			routes := getRoutes(t, s.cmd)
			addr := envOf(t, c)[s.addrVar]
			if addr == "" {
				t.Fatalf("%s is not set: the probes' port must follow it", s.addrVar)
			}
			want := map[string]string{"liveness": "/livez", "readiness": "/readyz"}
			if s.name == "docqa-service" {
				want["startup"] = "/readyz"
			}
			for kind, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
				if p == nil {
					if want[kind] != "" {
						t.Errorf("no %s probe", kind)
					}
					continue
				}
				if p.HTTPGet == nil {
					t.Errorf("%s probe is not an HTTP GET", kind)
					continue
				}
				if !routes[p.HTTPGet.Path] {
					t.Errorf("%s probe asks %s, which %s does not serve (it serves GET %v)", kind, p.HTTPGet.Path, s.name, slices.Sorted(maps.Keys(routes)))
				}
				if want[kind] != "" && p.HTTPGet.Path != want[kind] {
					t.Errorf("%s probe asks %s, want %s", kind, p.HTTPGet.Path, want[kind])
				}
				if got := portNumber(t, c, p.HTTPGet.Port); got != listenPort(t, addr) {
					t.Errorf("%s probe on port %d, the service listens on %s=%s", kind, got, s.addrVar, addr)
				}
			}
		})
	}
}

// Every variable a container is given is one its configuration reads: a
// misspelled or retired name would be ignored in silence.
func TestContainerEnvIsRead(t *testing.T) {
	b := mustRenderBase(t)
	known := map[string]envNames{gateway: caddyEnv(t, mustCaddyfile(t, b))}
	for _, s := range services {
		known[s.name] = configEnv(t, s.cmd)
	}
	for name, d := range b.deployments {
		c := mustContainer(t, d)
		k, ok := known[name]
		if !ok {
			t.Errorf("Deployment %s: no configuration known for it", name)
			continue
		}
		for v := range envOf(t, c) {
			if !k.reads(v) {
				t.Errorf("%s: %s is set, but its configuration does not read it", name, v)
			}
		}
	}
}

// mustCaddyfile returns the Caddyfile the gateway Deployment mounts where
// its image runs it from, checking it is the repository's.
func mustCaddyfile(tb testing.TB, b base) string {
	tb.Helper()
	d := b.deployments[gateway]
	c := mustContainer(tb, d)
	var mountPath string
	for _, m := range c.VolumeMounts {
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil {
				cm := b.configMaps[v.ConfigMap.Name]
				if cm == nil {
					tb.Fatalf("gateway mounts ConfigMap %s, which the base does not have", v.ConfigMap.Name)
				}
				mountPath = m.MountPath
				src, err := os.ReadFile(filepath.Join(repoRoot(tb), "Caddyfile"))
				if err != nil {
					tb.Fatal(err)
				}
				if cm.Data["Caddyfile"] != string(src) {
					tb.Fatal("the gateway's Caddyfile differs from the repository's: cp Caddyfile deploy/k8s/gateway/Caddyfile")
				}
				if mountPath != "/etc/caddy" || m.SubPath != "" {
					tb.Fatalf("the Caddyfile is mounted at %s (subPath %q); the image runs /etc/caddy/Caddyfile", mountPath, m.SubPath)
				}
				return cm.Data["Caddyfile"]
			}
		}
	}
	tb.Fatal("the gateway mounts no ConfigMap with the Caddyfile")
	return ""
}

// The pieces find each other: Services and budgets select their pods and
// reach the named ports, the autoscalers own the replica count of the two
// services, the gateway's upstreams are the services' Services, and every
// directory a container writes is a writable volume.
func TestWiring(t *testing.T) {
	b := mustRenderBase(t)
	for name, svc := range b.services {
		d := b.deployments[name]
		if d == nil {
			t.Errorf("Service %s: no Deployment of that name", name)
			continue
		}
		if !selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, d) {
			t.Errorf("Service %s does not select the pods of its Deployment", name)
		}
		c := mustContainer(t, d)
		for _, p := range svc.Spec.Ports {
			if portNumber(t, c, p.TargetPort) == 0 {
				t.Errorf("Service %s port %s: target %s is no container port", name, p.Name, p.TargetPort.String())
			}
		}
	}
	budgets := map[string]bool{}
	for _, pdb := range b.pdbs {
		for name, d := range b.deployments {
			if selects(t, pdb.Spec.Selector, d) {
				budgets[name] = true
			}
		}
	}
	scaled := map[string]bool{}
	for _, h := range b.hpas {
		ref := h.Spec.ScaleTargetRef
		d := b.deployments[ref.Name]
		if ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" || d == nil {
			t.Errorf("HorizontalPodAutoscaler %s scales %+v, not a Deployment here", h.Name, ref)
			continue
		}
		scaled[ref.Name] = true
		if d.Spec.Replicas != nil {
			t.Errorf("Deployment %s sets replicas: every apply would undo its autoscaler", ref.Name)
		}
		if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 2 {
			t.Errorf("HorizontalPodAutoscaler %s: minReplicas below 2 leaves the budget no room", h.Name)
		}
	}
	for name := range b.deployments {
		if !budgets[name] {
			t.Errorf("Deployment %s: no PodDisruptionBudget", name)
		}
	}
	for _, s := range services {
		if !scaled[s.name] {
			t.Errorf("%s: no HorizontalPodAutoscaler", s.name)
		}
	}

	// The gateway's upstreams are the services' Services, on the port each
	// forwards to the port the service listens on.
	genv := envOf(t, mustContainer(t, b.deployments[gateway]))
	for upstream, s := range map[string]service{"FUEL_UPSTREAM": services[0], "DOCQA_UPSTREAM": services[1]} {
		host, port, err := net.SplitHostPort(genv[upstream])
		svc := b.services[s.name]
		if err != nil || svc == nil || host != s.name {
			t.Errorf("gateway %s=%q, want the Service %s", upstream, genv[upstream], s.name)
			continue
		}
		c := mustContainer(t, b.deployments[s.name])
		reached := false
		for _, p := range svc.Spec.Ports {
			if strconv.Itoa(int(p.Port)) == port && portNumber(t, c, p.TargetPort) == listenPort(t, envOf(t, c)[s.addrVar]) {
				reached = true
			}
		}
		if !reached {
			t.Errorf("gateway %s=%q does not reach the port %s listens on", upstream, genv[upstream], s.name)
		}
	}

	// With a read-only root file system, what a container writes must be
	// on a volume mounted writable.
	writes := map[string][]string{
		"docqa-service": {"DOCQA_TEMP_DIR", "DOCQA_FILES_DIR", "DOCQA_PDF_CACHE_DIR"},
	}
	for name, vars := range writes {
		c := mustContainer(t, b.deployments[name])
		env := envOf(t, c)
		for _, v := range vars {
			dir := env[v]
			if !filepath.IsAbs(dir) {
				t.Errorf("%s: %s=%q, want an absolute path on a volume", name, v, dir)
				continue
			}
			onVolume := false
			for _, m := range c.VolumeMounts {
				if !m.ReadOnly && (dir == m.MountPath || strings.HasPrefix(dir, m.MountPath+"/")) {
					onVolume = true
				}
			}
			if !onVolume {
				t.Errorf("%s: %s=%s is on no writable volume", name, v, dir)
			}
		}
	}
}

// Only the gateway reaches the services, and only on their ports.
func TestNetworkPolicyAdmitsOnlyTheGateway(t *testing.T) {
	b := mustRenderBase(t)
	gw := b.deployments[gateway]
	for _, s := range services {
		d := b.deployments[s.name]
		c := mustContainer(t, d)
		covering := 0
		for _, np := range b.netpols {
			if !selects(t, &np.Spec.PodSelector, d) {
				continue
			}
			covering++
			if !slices.Contains(np.Spec.PolicyTypes, "Ingress") {
				t.Errorf("NetworkPolicy %s does not restrict ingress", np.Name)
			}
			for _, rule := range np.Spec.Ingress {
				if len(rule.From) == 0 {
					t.Errorf("NetworkPolicy %s admits every source", np.Name)
				}
				for _, peer := range rule.From {
					if peer.IPBlock != nil || peer.NamespaceSelector != nil || peer.PodSelector == nil || !selects(t, peer.PodSelector, gw) {
						t.Errorf("NetworkPolicy %s admits %+v, not only the gateway", np.Name, peer)
					}
					for other, od := range b.deployments {
						if other != gateway && peer.PodSelector != nil && selects(t, peer.PodSelector, od) {
							t.Errorf("NetworkPolicy %s admits %s too", np.Name, other)
						}
					}
				}
				if len(rule.Ports) == 0 {
					t.Errorf("NetworkPolicy %s admits every port", np.Name)
				}
				for _, p := range rule.Ports {
					if p.Port == nil || portNumber(t, c, *p.Port) != listenPort(t, envOf(t, c)[s.addrVar]) {
						t.Errorf("NetworkPolicy %s admits port %v, not the one %s listens on", np.Name, p.Port, s.name)
					}
				}
			}
		}
		if covering == 0 {
			t.Errorf("%s: no NetworkPolicy selects its pods", s.name)
		}
	}
}
