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

// Command run-local runs the manager for development, as `make run` does.
//
// The manager runs against the cluster of the current kubeconfig only with
// -cluster=current (make run CLUSTER=current), or when a person at a
// terminal answers yes to using it; it names that cluster's context and
// server first. Otherwise run-local starts a local kube-apiserver, etcd and
// kube-controller-manager with the project's CRDs, writes their kubeconfig to
// bin/local/kubeconfig, runs the manager against them until interrupted, and
// then stops everything it started. The manager's webhook is served on the
// loopback address with a certificate generated for it, and registered by
// URL, so feature gates work locally too. No node runs Pods.
//
// A first Ctrl-C (SIGINT, SIGTERM or SIGHUP) stops the manager, then the
// control plane, in order; a second stops everything at once. On Linux the
// kernel kills the manager and the control plane whenever run-local ends,
// even by SIGKILL, so none of them outlives it.
//
// Usage: run-local [flags] -- MANAGER [MANAGER-ARGS...]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"k8s.io/client-go/util/cert"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

func main() {
	if name, ok := launching(); ok {
		err := launch(name)
		fmt.Fprintf(os.Stderr, "run-local: %v\n", err)
		os.Exit(1)
	}
	kubeconfigOut := flag.String("local-kubeconfig", filepath.Join("bin", "local", "kubeconfig"),
		"Where to write the kubeconfig of the local control plane; kube-controller-manager's log goes beside it.")
	cluster := flag.String("cluster", "",
		"current: run the manager against the cluster the current kubeconfig reaches; local (the default): on a local "+
			"control plane, even where a cluster is reachable, about which it asks at a terminal.")
	pluginsDir := flag.String("plugins-dir", "bin",
		"Where the kubectl plugins are built, to print the line that puts them on PATH.")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: %s [flags] -- MANAGER [MANAGER-ARGS...]\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*kubeconfigOut, *pluginsDir, *cluster, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "run-local: %v\n", err)
		os.Exit(1)
	}
}

func run(kubeconfigOut, pluginsDir, cluster string, manager []string) error {
	// Caught from the start, so that an interrupt while the control plane boots
	// still stops it: its processes run in their own process groups.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	stop := newInterrupts()
	go stop.watch(signals)

	cur, use, err := useCurrent(cluster, os.Stdin)
	if err != nil {
		return err
	}
	if use {
		say("using the cluster of context %q at %s", cur.context, cur.host)
		say("install the CRDs there first with `make install` if they are missing")
		say("the webhooks are off: that cluster cannot call back into this machine (deploy with `make deploy` for them)")
		if line := pathLine(pluginsDir); line != "" {
			say("put the kubectl plugins on PATH with:")
			say("    %s", line)
		}
		return runManager(withFlags(manager, "--disable-webhooks"), nil, stop)
	}

	kubeconfig, err := filepath.Abs(kubeconfigOut)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(kubeconfig), 0o755); err != nil {
		return err
	}
	cmLogPath := filepath.Join(filepath.Dir(kubeconfig), "kube-controller-manager.log")
	cmLog, err := os.Create(cmLogPath)
	if err != nil {
		return err
	}
	defer cmLog.Close()

	say("starting a local control plane")
	say("(kube-apiserver, etcd and kube-controller-manager; its log goes to %s)", cmLogPath)
	opts := controlplane.Options{ControllerManager: true, ControllerManagerLog: cmLog}
	launcher := filepath.Join(filepath.Dir(kubeconfig), "launch")
	tied, err := prepareLaunchers(context.Background(), launcher)
	if err != nil {
		return fmt.Errorf("preparing the control plane's launchers in %s: %w", launcher, err)
	}
	if tied {
		opts.Launcher = launcher
	}
	cp, err := controlplane.StartWith(context.Background(), opts)
	if err != nil {
		return err
	}
	defer func() {
		say("stopping the local control plane")
		if err := cp.Stop(); err != nil {
			say("stopping the local control plane: %v", err)
			return
		}
		say("local control plane stopped")
	}()

	if sig := stop.first(); sig != nil {
		return fmt.Errorf("interrupted by %v before the manager started", sig)
	}

	if err := cp.WriteKubeconfig(kubeconfig); err != nil {
		return err
	}
	webhookFlags, err := localWebhook(filepath.Join(filepath.Dir(kubeconfig), "certs"))
	if err != nil {
		return err
	}
	say("local control plane at %s with the CRDs installed", cp.Config.Host)
	say("point kubectl at it, with kubectl and the kubectl plugins on PATH:")
	say("    export KUBECONFIG=%s", kubeconfig)
	say("    %s", pathLine(pluginsDir, cp.BinaryDir))
	say("an ApplySet acts as its namespace's default ServiceAccount, which may do nothing until you grant it, e.g.:")
	say("    kubectl create rolebinding default-admin -n default --clusterrole=cluster-admin --serviceaccount=default:default")
	say("no node runs here: Deployments and ReplicaSets get a status, Pods are created but never run (sudo make run NODE=1 for a node)")
	say("press Ctrl-C to stop the manager and the control plane; twice to stop them at once")
	return runManager(withFlags(manager, webhookFlags...), []string{"KUBECONFIG=" + kubeconfig}, stop)
}

// interrupts follows the signals that end run-local. The first is passed to
// the manager, which stops in its own time (up to its
// --graceful-shutdown-timeout, longer on a large input), after which the
// control plane is stopped. The second kills the manager and ends run-local
// at once; the kernel then kills the control plane (tieToParent).
type interrupts struct {
	mu      sync.Mutex
	sig     os.Signal
	manager *os.Process
}

func newInterrupts() *interrupts { return &interrupts{} }

func (in *interrupts) watch(signals <-chan os.Signal) {
	for sig := range signals {
		in.mu.Lock()
		first, manager := in.sig == nil, in.manager
		if first {
			in.sig = sig
		}
		in.mu.Unlock()
		if first {
			if manager != nil {
				_ = manager.Signal(sig)
			}
			continue
		}
		say("%v again: stopping the manager and the control plane at once", sig)
		if manager != nil {
			// Its process group: whatever the manager started goes with it.
			_ = syscall.Kill(-manager.Pid, syscall.SIGKILL)
		}
		code := 1
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}
}

// first is the first signal received, nil before any.
func (in *interrupts) first() os.Signal {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.sig
}

// started records the running manager, and passes it a signal that came
// before it did.
func (in *interrupts) started(manager *os.Process) {
	in.mu.Lock()
	in.manager = manager
	sig := in.sig
	in.mu.Unlock()
	if sig != nil {
		_ = manager.Signal(sig)
	}
}

// pathLine returns the shell line that puts the kubectl plugins in
// pluginsDir, when they are built there, and the directories in dirs on
// PATH; empty when there is nothing to add.
func pathLine(pluginsDir string, dirs ...string) string {
	var path []string
	if abs, err := filepath.Abs(pluginsDir); err == nil {
		if _, err := os.Stat(filepath.Join(abs, "kubectl-applyset")); err == nil {
			path = append(path, abs)
		}
	}
	path = append(path, dirs...)
	if len(path) == 0 {
		return ""
	}
	return "export PATH=" + strings.Join(path, ":") + ":$PATH"
}

// localWebhook prepares the manager's webhook server for the local control
// plane: a free port on the loopback address and a self-signed certificate
// for it in certDir, whose CA the manager registers with its webhook entries.
func localWebhook(certDir string) ([]string, error) {
	addr, err := controlplane.FreeAddr()
	if err != nil {
		return nil, fmt.Errorf("finding a port for the webhook server: %w", err)
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	// The bundle holds the serving certificate followed by the CA that signed it.
	bundle, key, err := cert.GenerateSelfSignedCertKey("127.0.0.1", nil, []string{"localhost"})
	if err != nil {
		return nil, fmt.Errorf("generating the webhook certificate: %w", err)
	}
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{"tls.crt": bundle, "tls.key": key, "ca.crt": bundle} {
		if err := os.WriteFile(filepath.Join(certDir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	return []string{
		"--webhook-port=" + port,
		"--webhook-cert-dir=" + certDir,
		"--webhook-url=https://127.0.0.1:" + port,
	}, nil
}

// withFlags puts flags right after the manager's path, so that flags a person
// passes (make run ARGS=...) come later and win.
func withFlags(manager []string, flags ...string) []string {
	return append(append([]string{manager[0]}, flags...), manager[1:]...)
}

// runManager runs the manager in its own process group, so that a Ctrl-C in the
// terminal reaches it once, through this process, and the control plane is
// stopped only after the manager has shut down.
func runManager(args, extraEnv []string, stop *interrupts) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, parentEnv+"=") })
	cmd.Env = append(env, extraEnv...)
	cmd.SysProcAttr = childAttr()

	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the manager: %w", err)
	}
	stop.started(cmd.Process)
	err := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("the manager exited with status %d", exit.ExitCode())
	}
	return err
}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "run-local: "+format+"\n", args...)
}
