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

package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// controllerManagerBinary is the name of the binary that runs the built-in
// controllers.
const controllerManagerBinary = "kube-controller-manager"

// How long the controller manager may take to create the default namespace's
// ServiceAccount, and to stop.
const (
	controllerManagerReadyTimeout = 2 * time.Minute
	controllerManagerStopTimeout  = 20 * time.Second
)

// ControllerManagerPath returns a kube-controller-manager for the control
// plane whose other binaries are in binDir: the one in binDir when there is
// one (make control-plane puts it there), else the one
// hack/setup-control-plane.sh --controller-manager builds once into bin/k8s.
func ControllerManagerPath(ctx context.Context, binDir string) (string, error) {
	if path := filepath.Join(binDir, controllerManagerBinary); isExecutable(path) {
		return path, nil
	}
	dir, err := setupScript(ctx, "--controller-manager")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, controllerManagerBinary), nil
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// controllerManager is a running kube-controller-manager.
type controllerManager struct {
	cmd    *exec.Cmd
	exited chan struct{}
	// err is the process's exit, read once exited is closed.
	err error
	// tail keeps the end of its output for error messages.
	tail *tailBuffer
}

// startControllerManager runs kube-controller-manager against the control
// plane as a cluster administrator, with the API server's service account
// signing key (so the ServiceAccount controllers and the API server agree on
// tokens) and serving CA (published to every namespace as kube-root-ca.crt),
// and returns once the default namespace has its default ServiceAccount, the
// sign that the controllers run. Its output goes to log as well.
func (c *ControlPlane) startControllerManager(ctx context.Context, log io.Writer) (*controllerManager, error) {
	path, err := ControllerManagerPath(ctx, c.BinaryDir)
	if err != nil {
		return nil, err
	}
	if c.launcher != "" {
		path = filepath.Join(c.launcher, controllerManagerBinary)
	}
	user, err := c.env.AddUser(envtest.User{Name: "system:kube-controller-manager", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("creating the controller manager's user: %w", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return nil, err
	}
	kubeconfigPath := filepath.Join(c.certDir, "kube-controller-manager.kubeconfig")
	caPath := filepath.Join(c.certDir, "serving-ca.crt")
	for path, data := range map[string][]byte{kubeconfigPath: kubeconfig, caPath: c.env.ControlPlane.APIServer.CA} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
	}

	if log == nil {
		log = io.Discard
	}
	tail := &tailBuffer{max: 4096}
	cmd := exec.Command(path,
		"--kubeconfig="+kubeconfigPath,
		"--leader-elect=false",
		// No serving port: nothing here reads its health or metrics, and two
		// control planes on one machine would fight over the default port.
		"--secure-port=0",
		"--service-account-private-key-file="+filepath.Join(c.certDir, "sa-signer.key"),
		"--root-ca-file="+caPath,
	)
	cmd.Stdout = io.MultiWriter(log, tail)
	cmd.Stderr = cmd.Stdout
	// Its own process group, as envtest gives kube-apiserver and etcd: a
	// Ctrl-C in the terminal reaches the process that stops it in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	cm := &controllerManager{cmd: cmd, exited: make(chan struct{}), tail: tail}
	go func() {
		cm.err = cmd.Wait()
		close(cm.exited)
	}()
	if err := cm.waitReady(ctx, c); err != nil {
		return nil, errors.Join(err, cm.stop())
	}
	return cm, nil
}

// waitReady waits until the default namespace has its default ServiceAccount.
func (cm *controllerManager) waitReady(ctx context.Context, c *ControlPlane) error {
	clientset, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, controllerManagerReadyTimeout)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := clientset.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		switch {
		case err == nil:
			return nil
		case !apierrors.IsNotFound(err) && ctx.Err() == nil:
			return fmt.Errorf("reading the default ServiceAccount: %w", err)
		}
		select {
		case <-cm.exited:
			exit := cm.err
			if exit == nil {
				exit = errors.New("exit status 0")
			}
			return fmt.Errorf("kube-controller-manager exited (%w):\n%s", exit, cm.tail.String())
		case <-ctx.Done():
			return fmt.Errorf("kube-controller-manager created no default ServiceAccount within %s:\n%s",
				controllerManagerReadyTimeout, cm.tail.String())
		case <-tick.C:
		}
	}
}

// stop ends kube-controller-manager: SIGTERM, then SIGKILL if it lingers.
func (cm *controllerManager) stop() error {
	select {
	case <-cm.exited:
		return nil
	default:
	}
	if err := cm.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-cm.exited:
		return nil
	case <-time.After(controllerManagerStopTimeout):
		_ = cm.cmd.Process.Kill()
		<-cm.exited
		return fmt.Errorf("kube-controller-manager did not stop within %s; killed it", controllerManagerStopTimeout)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
