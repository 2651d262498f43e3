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
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
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
	// Tracing, when set, is an apiserver.config.k8s.io TracingConfiguration
	// (YAML) the API server exports its own spans under, joined to the
	// traces of the requests that carry a W3C traceparent.
	Tracing string
	// Launcher, when set, is a directory whose etcd, kube-apiserver and
	// kube-controller-manager are run in place of the real ones: programs
	// that start them bound to their parent's life, as `make run` does, so
	// that none outlives it (hack/run-local).
	Launcher string
}

// StartWith starts a control plane with opts.
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
	if err := errors.Join(audit(apiServer, certDir, opts), traced(apiServer, certDir, opts)); err != nil {
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

// traced writes opts.Tracing beside the certificates and has the API
// server export its spans as it says.
func traced(apiServer *envtest.APIServer, dir string, opts Options) error {
	if opts.Tracing == "" {
		return nil
	}
	config := filepath.Join(dir, "tracing.yaml")
	if err := os.WriteFile(config, []byte(opts.Tracing), 0o600); err != nil {
		return err
	}
	apiServer.Configure().Set("tracing-config-file", config)
	return nil
}

// frontEtcd gives etcd a client address chosen now, so that front can stand
// before it, and points kube-apiserver at the address front returns.
func frontEtcd(env *envtest.Environment, front func(string) (string, error)) error {
	etcdAddr, err := FreeAddr()
	if err != nil {
		return fmt.Errorf("choosing a port for etcd: %w", err)
	}
	via, err := front(etcdAddr)
	if err != nil {
		return fmt.Errorf("standing before etcd: %w", err)
	}
	env.ControlPlane.Etcd = &envtest.Etcd{URL: &url.URL{Scheme: "http", Host: etcdAddr}}
	env.ControlPlane.GetAPIServer().Configure().Set("etcd-servers", "http://"+via)
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

// FreeAddr is a loopback address, host:port, that no one listens on now,
// for a server started next to take.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}
