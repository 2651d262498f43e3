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

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// target is where the manager runs.
type target int

// clusterCurrent and clusterLocal are the values of -cluster.
const (
	clusterCurrent = "current"
	clusterLocal   = "local"
)

const (
	targetLocal target = iota
	targetCurrent
	targetAsk
)

// decide is where the manager runs, by CLUSTER (-cluster): the local control
// plane unless CLUSTER=current, or unless a person at a terminal says to use
// the cluster the kubeconfig reaches. A reachable cluster is never used by
// surprise: it may be anyone's.
func decide(cluster string, reachable, terminal bool) (target, error) {
	switch {
	case cluster != "" && cluster != clusterCurrent && cluster != clusterLocal:
		return 0, fmt.Errorf("CLUSTER=%s: want current or local", cluster)
	case cluster == clusterCurrent && !reachable:
		return 0, fmt.Errorf("CLUSTER=current: the current kubeconfig reaches no cluster")
	case cluster == clusterCurrent:
		return targetCurrent, nil
	case cluster == "" && reachable && terminal:
		return targetAsk, nil
	}
	return targetLocal, nil
}

// current is the cluster of the current kubeconfig, where one answers.
type current struct {
	context, host string
}

// reachableCluster is the cluster of the current kubeconfig, if it answers.
func reachableCluster() (current, bool) {
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{})
	cfg, err := loader.ClientConfig()
	if err != nil {
		return current{}, false
	}
	raw, err := loader.RawConfig()
	if err != nil {
		return current{}, false
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = 3 * time.Second
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return current{}, false
	}
	if _, err := dc.ServerVersion(); err != nil {
		return current{}, false
	}
	return current{context: raw.CurrentContext, host: cfg.Host}, true
}

// useCurrent says whether the manager runs against the current cluster,
// telling which one it is and asking at a terminal when CLUSTER is unset.
func useCurrent(cluster string, in io.Reader) (current, bool, error) {
	cur, reachable := reachableCluster()
	t, err := decide(cluster, reachable, term.IsTerminal(int(os.Stdin.Fd())))
	if err != nil || !reachable {
		return cur, false, err
	}
	say("the current kubeconfig reaches the cluster of context %q at %s", cur.context, cur.host)
	switch t {
	case targetCurrent:
		return cur, true, nil
	case targetAsk:
		fmt.Fprintf(os.Stderr, "run-local: run the manager there, instead of on a local control plane? [y/N] ")
		answer, _ := bufio.NewReader(in).ReadString('\n')
		if yes := strings.TrimSpace(strings.ToLower(answer)); yes == "y" || yes == "yes" {
			return cur, true, nil
		}
	}
	say("not using it (make run CLUSTER=current does): starting a local control plane instead")
	return cur, false, nil
}
