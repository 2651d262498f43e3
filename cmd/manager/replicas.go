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
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/applyset-operator/applyset-operator/internal/replicas"
)

// replicaOptions are the flags of active-active replicas: with
// --replica-sharding every replica reconciles the sets that name it, and
// only the parent, orphan and feature-gate controllers and the webhooks'
// registration stay on the elected leader.
type replicaOptions struct {
	enabled bool
	name    string
}

func (o *replicaOptions) bindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.enabled, "replica-sharding", false,
		"Spread the ApplySets and ClusterApplySets over every live replica, each holding a Lease of its own, instead of "+
			"reconciling them all on the elected leader; a set moves between replicas only by a handover recorded on it.")
	fs.StringVar(&o.name, "replica-name", "",
		"This replica's name among the replicas with --replica-sharding: its Lease is applyset-operator-replica-NAME. "+
			"Default: $POD_NAME, else the hostname.")
}

// replicaName is --replica-name, else $POD_NAME, else the hostname.
func (o *replicaOptions) replicaName() (string, error) {
	if o.name != "" {
		return o.name, nil
	}
	if name := os.Getenv("POD_NAME"); name != "" {
		return name, nil
	}
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("--replica-sharding: naming the replica: %w", err)
	}
	return host, nil
}

// identify names the replica in the user agent of every request it makes,
// so that the API server's audit log tells the replicas' writes apart.
func (o *replicaOptions) identify(cfg *rest.Config) error {
	if !o.enabled {
		return nil
	}
	name, err := o.replicaName()
	if err != nil {
		return err
	}
	cfg.UserAgent = replicaUserAgent(name)
	return nil
}

// replicaUserAgent keeps client-go's default first, whose program name the
// API server takes as the field manager of writes that name none.
func replicaUserAgent(name string) string {
	return rest.DefaultKubernetesUserAgent() + " replica/" + name
}

// membership is the replica's Lease holder, added to mgr; nil when the
// replicas do not share the sets.
func (o *replicaOptions) membership(mgr ctrl.Manager, namespace string) (*replicas.Roster, error) {
	if !o.enabled {
		return nil, nil
	}
	name, err := o.replicaName()
	if err != nil {
		return nil, err
	}
	if namespace == "" {
		raw, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
		if err != nil {
			return nil, errors.New("--replica-sharding outside a Pod needs --leader-election-namespace, the namespace of the replicas' Leases")
		}
		namespace = strings.TrimSpace(string(raw))
	}
	m := &replicas.Roster{Reader: mgr.GetAPIReader(), Writer: mgr.GetClient(), Namespace: namespace, Replica: name,
		Timing: replicas.DefaultTiming}
	return m, mgr.Add(m)
}
