/*
Copyright 2026 The applyset-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package controlplane finds the kube-apiserver, etcd and kubectl binaries the
// project builds into bin/k8s and starts a local control plane with the
// project's CRDs installed. The envtest suites and `make run` share it;
// `make run` adds kube-controller-manager (controllermanager.go).
package controlplane

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// modulePath identifies the project's go.mod when looking for the checkout's root.
const modulePath = "github.com/applyset-operator/applyset-operator"

// assetsEnv is the variable envtest reads the binaries' directory from.
const assetsEnv = "KUBEBUILDER_ASSETS"

// Root returns the checkout's top directory: the nearest ancestor of the working
// directory whose go.mod declares this module.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// BinaryDir returns the directory holding kube-apiserver, etcd and kubectl.
// KUBEBUILDER_ASSETS wins when set; otherwise hack/setup-control-plane.sh
// builds the binaries once and reports where they are.
func BinaryDir(ctx context.Context) (string, error) {
	if dir := os.Getenv(assetsEnv); dir != "" {
		return dir, nil
	}
	return setupScript(ctx)
}

// setupScript runs hack/setup-control-plane.sh with args, its progress lines
// on standard error, and returns the directory it prints.
func setupScript(ctx context.Context, args ...string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(root, "hack", "setup-control-plane.sh")}, args...)...)
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("installing control-plane binaries with hack/setup-control-plane.sh %s: %w", strings.Join(args, " "), err)
	}
	dir := strings.TrimSpace(stdout.String())
	if dir == "" {
		return "", errors.New("hack/setup-control-plane.sh printed no binary directory")
	}
	return dir, nil
}

// ControlPlane is a running kube-apiserver and etcd with the project's CRDs.
type ControlPlane struct {
	// Config reaches the API server as a cluster administrator.
	Config *rest.Config
	// BinaryDir holds the kube-apiserver, etcd and kubectl that run it.
	BinaryDir string

	env *envtest.Environment
	// controllerManager runs when Options.ControllerManager asked for it.
	controllerManager *controllerManager
	// certDir keeps the API server's certificates, and the CA of its users,
	// across StopAPIServer and StartAPIServer.
	certDir string
	// launcher is Options.Launcher.
	launcher string
}

// Options adjust a control plane for suites that put it under faults.
type Options struct {
	// EtcdFront, when set, is called with etcd's client address (host:port)
	// before etcd starts and returns the address kube-apiserver reaches etcd
	// at instead: a proxy that slows or cuts the traffic between them.
	EtcdFront func(etcdAddr string) (string, error)
	// ControllerManager runs kube-controller-manager beside the API server,
	// as a real cluster does: namespaces get their default ServiceAccount,
	// deleted namespaces are emptied, owner references are garbage collected
	// and Deployments and ReplicaSets get a status. The API server then also
	// runs the ServiceAccount admission plugin, which envtest turns off.
	// `make run` wants this; the envtest suites do not.
	ControllerManager bool
	// ControllerManagerLog receives kube-controller-manager's output.
	ControllerManagerLog io.Writer
	// AuditPolicy, when set, is an audit.k8s.io/v1 Policy (YAML) the API
	// server audits requests under, writing the events to AuditLog as JSON
	// lines before it answers: the record of who wrote what.
	AuditPolicy string
	AuditLog    string
	// Launcher, when set, is a directory whose etcd, kube-apiserver and
	// kube-controller-manager are run in place of the real ones: programs
	// that start them bound to their parent's life, as `make run` does, so
	// that none outlives it (hack/run-local).
	Launcher string
}

// Start runs a new control plane, installs the CRDs from config/crd/bases
// (waiting until they are established), the admission policies from
// config/policy, and the objects of the install the operator needs but may
// not create (Shipped).
//
// It also prepares a serving address and certificate for a local webhook
// server: WebhookServing and WebhookCA give them.
func Start(ctx context.Context) (*ControlPlane, error) {
	return StartWith(ctx, Options{})
}

// StartWith is Start with options.
func StartWith(ctx context.Context, opts Options) (*ControlPlane, error) {
	bin, err := BinaryDir(ctx)
	if err != nil {
		return nil, err
	}
	root, err := Root()
	if err != nil {
		return nil, err
	}
	certDir, err := os.MkdirTemp("", "kube-apiserver-")
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: bin,
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	// A directory of our own, not envtest's temporary one, so that a restart
	// keeps the serving certificate, the port and every user's credentials.
	apiServer := env.ControlPlane.GetAPIServer()
	apiServer.CertDir = certDir
	// Stop as an API server behind a load balancer does: answer 429 with
	// Retry-After until the requests in flight are done, then close open
	// watches after 2 s, rather than waiting up to a minute for them.
	apiServer.Configure().Set("shutdown-send-retry-after", "true")
	// envtest's /24 holds 254 Services; the scale benchmarks create 1,000.
	apiServer.Configure().Set("service-cluster-ip-range", "10.96.0.0/16")
	if opts.ControllerManager {
		apiServer.Configure().Disable("disable-admission-plugins")
	}
	if err := audit(apiServer, certDir, opts); err != nil {
		return nil, errors.Join(err, os.RemoveAll(certDir))
	}
	if opts.EtcdFront != nil {
		if err := frontEtcd(env, opts.EtcdFront); err != nil {
			return nil, errors.Join(err, os.RemoveAll(certDir))
		}
	}
	if opts.Launcher != "" {
		if env.ControlPlane.Etcd == nil {
			env.ControlPlane.Etcd = &envtest.Etcd{}
		}
		env.ControlPlane.Etcd.Path = filepath.Join(opts.Launcher, "etcd")
		apiServer.Path = filepath.Join(opts.Launcher, "kube-apiserver")
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("starting the local control plane from %s: %w", bin, err), os.RemoveAll(certDir))
	}
	cp := &ControlPlane{Config: cfg, BinaryDir: bin, env: env, certDir: certDir, launcher: opts.Launcher}
	if err := installManifests(ctx, cfg, filepath.Join(root, "config", "policy")); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	if err := installShipped(ctx, cfg, root); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	if opts.ControllerManager {
		if cp.controllerManager, err = cp.startControllerManager(ctx, opts.ControllerManagerLog); err != nil {
			return nil, errors.Join(err, cp.Stop())
		}
	}
	return cp, nil
}

// audit writes opts.AuditPolicy beside the certificates and has the API
// server follow it, in blocking mode: a request is answered only once its
// event is written.
func audit(apiServer *envtest.APIServer, dir string, opts Options) error {
	if opts.AuditPolicy == "" {
		return nil
	}
	if opts.AuditLog == "" {
		return errors.New("an audit policy needs a log file")
	}
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(opts.AuditPolicy), 0o600); err != nil {
		return err
	}
	args := apiServer.Configure()
	args.Set("audit-policy-file", policy)
	args.Set("audit-log-path", opts.AuditLog)
	args.Set("audit-log-format", "json")
	args.Set("audit-log-mode", "blocking")
	return nil
}

// frontEtcd gives etcd a client address chosen now, so that front can stand
// before it, and points kube-apiserver at the address front returns.
func frontEtcd(env *envtest.Environment, front func(string) (string, error)) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("choosing a port for etcd: %w", err)
	}
	etcdAddr := l.Addr().String()
	if err := l.Close(); err != nil {
		return err
	}
	via, err := front(etcdAddr)
	if err != nil {
		return fmt.Errorf("standing before etcd: %w", err)
	}
	env.ControlPlane.Etcd = &envtest.Etcd{URL: &url.URL{Scheme: "http", Host: etcdAddr}}
	env.ControlPlane.GetAPIServer().Configure().Set("etcd-servers", "http://"+via)
	return nil
}

// installManifests creates the objects of the YAML files in dir, leaving out
// kustomize's own files, and the namespaces they name: the ServiceAccount
// policy's parameters live in the operator's namespace, as they install.
func installManifests(ctx context.Context, cfg *rest.Config, dir string) error {
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	for _, file := range files {
		if strings.HasPrefix(filepath.Base(file), "kustomiz") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		decoder := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return fmt.Errorf("decoding %s: %w", file, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			if ns := obj.GetNamespace(); ns != "" {
				namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
				if err := c.Create(ctx, namespace); client.IgnoreAlreadyExists(err) != nil {
					return fmt.Errorf("creating namespace %s for %s %s from %s: %w", ns, obj.GetKind(), obj.GetName(), file, err)
				}
			}
			if err := c.Create(ctx, obj); err != nil {
				return fmt.Errorf("installing %s %s from %s: %w", obj.GetKind(), obj.GetName(), file, err)
			}
		}
	}
	return nil
}

// WebhookServing returns where a local webhook server must listen, and the
// directory of its certificates, for the installed webhook configurations.
func (c *ControlPlane) WebhookServing() (host string, port int, certDir string) {
	o := c.env.WebhookInstallOptions
	return o.LocalServingHost, o.LocalServingPort, o.LocalServingCertDir
}

// WebhookCA returns the PEM CA that verifies the certificate in the
// WebhookServing directory.
func (c *ControlPlane) WebhookCA() []byte {
	return c.env.WebhookInstallOptions.LocalServingCAData
}

// KubectlPath returns the kubectl built beside the control plane.
func (c *ControlPlane) KubectlPath() string {
	return filepath.Join(c.BinaryDir, "kubectl")
}

// WriteKubeconfig writes a kubeconfig for a cluster-admin user of the control
// plane to path, creating its directory.
func (c *ControlPlane) WriteKubeconfig(path string) error {
	user, err := c.env.AddUser(envtest.User{Name: "local-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("creating the local admin user: %w", err)
	}
	data, err := user.KubeConfig()
	if err != nil {
		return fmt.Errorf("rendering the kubeconfig: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// StopAPIServer stops kube-apiserver and leaves etcd running.
func (c *ControlPlane) StopAPIServer() error {
	return c.env.ControlPlane.APIServer.Stop()
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, on the
// same port, etcd and certificates, and returns once it is healthy: clients
// made before the stop reach it again.
func (c *ControlPlane) StartAPIServer() error {
	return c.env.ControlPlane.APIServer.Start()
}

// Stop ends kube-controller-manager (when it runs), kube-apiserver and etcd
// and removes their temporary data.
func (c *ControlPlane) Stop() error {
	var errs []error
	if c.controllerManager != nil {
		errs = append(errs, c.controllerManager.stop())
	}
	return errors.Join(append(errs, c.env.Stop(), os.RemoveAll(c.certDir))...)
}

// EtcdURL is etcd's client address, which also serves its /metrics.
func (c *ControlPlane) EtcdURL() string {
	return c.env.ControlPlane.Etcd.URL.String()
}

// Shipped says whether an object of the install (config/default, built as
// `kubectl apply -k` builds it) is one the operator needs to run but may not
// create, so that a control plane without the install has it too: the two
// webhook configurations the operator fills in, and the identity of the
// feature gates' write probe with its namespace, the operator's.
func Shipped(kind, name string) bool {
	switch kind {
	case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", namespaceKind:
		return true
	case "Role", "RoleBinding":
		return name == "applyset-operator-featuregate-probe"
	}
	return false
}

// Install builds config/default as `kubectl apply -k` does and returns its
// objects.
func Install(root string) ([]*unstructured.Unstructured, error) {
	return Build(filepath.Join(root, "config", "default"))
}

// Build builds the kustomization in dir as `kubectl apply -k` does and
// returns its objects.
func Build(dir string) ([]*unstructured.Unstructured, error) {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", dir, err)
	}
	var objs []*unstructured.Unstructured
	for _, res := range resources.Resources() {
		// Through JSON, so that numbers are int64 and float64 as a client reads them.
		data, err := res.MarshalJSON()
		if err != nil {
			return nil, err
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// namespaceKind is the kind of the objects installed first.
const namespaceKind = "Namespace"

// installShipped creates the objects of the install that Shipped names.
func installShipped(ctx context.Context, cfg *rest.Config, root string) error {
	objs, err := Install(root)
	if err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	// Namespaces first, before what lives in them.
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int {
		return cmp.Compare(boolInt(a.GetKind() != namespaceKind), boolInt(b.GetKind() != namespaceKind))
	})
	for _, obj := range objs {
		if !Shipped(obj.GetKind(), obj.GetName()) {
			continue
		}
		// The namespace may be there already: config/policy's parameters live in it.
		if err := c.Create(ctx, obj); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("installing %s %s from config/default: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
