package deploycheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// repoRoot is the repository root, two levels above this package.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		tb.Fatalf("no go.work at the repository root %s: %v", root, err)
	}
	return root
}

// scheme holds the API groups and versions the base may use; an object of
// any other kind or version fails to decode.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme,
		autoscalingv2.AddToScheme, networkingv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// strict decodes YAML or JSON into the registered type of its apiVersion
// and kind, refusing unknown and duplicate fields.
var strict = serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()

// render runs kustomize on dir as `kubectl apply -k dir` would (files
// outside dir refused) and decodes every object strictly.
func render(fSys filesys.FileSystem, dir string) ([]runtime.Object, error) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fSys, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize %s: %w", dir, err)
	}
	var objs []runtime.Object
	for _, r := range m.Resources() {
		src, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.CurId(), err)
		}
		obj, _, err := strict.Decode(src, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.GetKind(), r.GetName(), err)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// base is deploy/k8s rendered and sorted by kind.
type base struct {
	deployments  map[string]*appsv1.Deployment
	services     map[string]*corev1.Service
	configMaps   map[string]*corev1.ConfigMap
	pdbs         []*policyv1.PodDisruptionBudget
	hpas         []*autoscalingv2.HorizontalPodAutoscaler
	netpols      []*networkingv1.NetworkPolicy
	pvcs         map[string]*corev1.PersistentVolumeClaim
	unclassified []runtime.Object
}

func mustRenderBase(tb testing.TB) base {
	tb.Helper()
	objs, err := render(filesys.MakeFsOnDisk(), filepath.Join(repoRoot(tb), "deploy", "k8s"))
	if err != nil {
		tb.Fatal(err)
	}
	b := base{
		deployments: map[string]*appsv1.Deployment{},
		services:    map[string]*corev1.Service{},
		configMaps:  map[string]*corev1.ConfigMap{},
		pvcs:        map[string]*corev1.PersistentVolumeClaim{},
	}
	for _, obj := range objs {
		switch o := obj.(type) {
		case *appsv1.Deployment:
			b.deployments[o.Name] = o
		case *corev1.Service:
			b.services[o.Name] = o
		case *corev1.ConfigMap:
			b.configMaps[o.Name] = o
		case *corev1.PersistentVolumeClaim:
			b.pvcs[o.Name] = o
		case *policyv1.PodDisruptionBudget:
			b.pdbs = append(b.pdbs, o)
		case *autoscalingv2.HorizontalPodAutoscaler:
			b.hpas = append(b.hpas, o)
		case *networkingv1.NetworkPolicy:
			b.netpols = append(b.netpols, o)
		default:
			b.unclassified = append(b.unclassified, obj)
		}
	}
	return b
}

func TestBaseRendersAndDecodesStrictly(t *testing.T) {
	b := mustRenderBase(t)
	// Anything else (a Secret above all) is not meant to be in the base.
	for _, o := range b.unclassified {
		t.Errorf("unexpected object %T in the base", o)
	}
	for _, name := range []string{"fuel-service", "docqa-service", "gateway"} {
		if b.deployments[name] == nil || b.services[name] == nil {
			t.Errorf("%s: no Deployment and Service of that name", name)
		}
	}
	if len(b.deployments) != 3 {
		t.Errorf("%d Deployments, want 3", len(b.deployments))
	}
}

// The same rendering and decoding refuse what a typo makes: a field the
// API type does not have, a field given twice, a kind that does not exist.
func TestStrictDecodingRefuses(t *testing.T) {
	const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  %s
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: web
          %s
`
	for _, tt := range []struct {
		name, resource, want string
	}{
		{"valid", fmt.Sprintf(deployment, "replicas: 2", "imagePullPolicy: Always"), ""},
		{"misspelled spec field", fmt.Sprintf(deployment, "replcas: 2", "imagePullPolicy: Always"), `unknown field "spec.replcas"`},
		{"misspelled container field", fmt.Sprintf(deployment, "replicas: 2", "readinesProbe: {}"), `unknown field "spec.template.spec.containers[0].readinesProbe"`},
		{"wrong case", fmt.Sprintf(deployment, "replicas: 2", "ImagePullPolicy: Always"), `unknown field "spec.template.spec.containers[0].ImagePullPolicy"`},
		{"unknown kind", "apiVersion: apps/v1\nkind: Deploymnet\nmetadata:\n  name: web\n", `no kind "Deploymnet" is registered`},
		{"unregistered version", "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n", `no kind "HorizontalPodAutoscaler" is registered for version "autoscaling/v1"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fSys := filesys.MakeFsInMemory()
			if err := fSys.WriteFile("/app/kustomization.yaml", []byte("resources:\n  - web.yaml\n")); err != nil {
				t.Fatal(err)
			}
			if err := fSys.WriteFile("/app/web.yaml", []byte(tt.resource)); err != nil {
				t.Fatal(err)
			}
			objs, err := render(fSys, "/app")
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("render: %v", err)
			case tt.want == "" && len(objs) != 1:
				t.Fatalf("%d objects, want 1", len(objs))
			case tt.want != "" && err == nil:
				t.Fatalf("rendered %v, want an error containing %q", objs, tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}
