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
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// The replicas component, built into the default install as its header
// shows, gives three replicas with --replica-sharding, named after their
// Pods, whose ServiceAccount may hold their Leases in the operator's
// namespace.
func TestReplicasComponent(t *testing.T) {
	var deployments []appsv1.Deployment
	roles := map[string]rbacv1.Role{}
	var bindings []rbacv1.RoleBinding
	for _, res := range buildOverlay(t, "replicas") {
		switch res.GetKind() {
		case "Deployment":
			deployments = append(deployments, appsv1.Deployment{})
			decodeResource(t, res, &deployments[len(deployments)-1])
		case "Role":
			var r rbacv1.Role
			decodeResource(t, res, &r)
			roles[r.Namespace+"/"+r.Name] = r
		case "RoleBinding":
			bindings = append(bindings, rbacv1.RoleBinding{})
			decodeResource(t, res, &bindings[len(bindings)-1])
		}
	}
	if len(deployments) != 1 {
		t.Fatalf("want one Deployment, got %d", len(deployments))
	}
	d := deployments[0]
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("%s runs %v replicas, want 3", d.Name, d.Spec.Replicas)
	}
	container := d.Spec.Template.Spec.Containers[0]
	o, err := parseFlags(container.Args...)
	if err != nil {
		t.Fatalf("%s: %v", d.Name, err)
	}
	if !o.replicas.enabled || o.replicas.name != "" {
		t.Errorf("%s: --replica-sharding %v, --replica-name %q; want sharding, named by $POD_NAME", d.Name, o.replicas.enabled, o.replicas.name)
	}
	if !slices.ContainsFunc(container.Env, func(e corev1.EnvVar) bool {
		return e.Name == "POD_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name"
	}) {
		t.Errorf("%s: no POD_NAME from the Pod's metadata.name in %v", d.Name, container.Env)
	}
	if d.Spec.Template.Spec.Containers[0].Image != "registry.example.com/applyset-operator:v0.1.0" {
		t.Errorf("%s runs %s, not the image the overlay sets", d.Name, container.Image)
	}

	// The replicas' Leases, in the Deployment's namespace, for its ServiceAccount.
	account := d.Spec.Template.Spec.ServiceAccountName
	// What internal/replicas does with them: it reads its own, lists them
	// all, creates and renews its own, and deletes those of replicas gone.
	need := []string{"get", "list", "create", "update", "delete"}
	granted := map[string]bool{}
	for _, b := range bindings {
		if b.Namespace != d.Namespace || b.RoleRef.Kind != "Role" ||
			!slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
				return s.Kind == "ServiceAccount" && s.Name == account && s.Namespace == d.Namespace
			}) {
			continue
		}
		for _, rule := range roles[b.Namespace+"/"+b.RoleRef.Name].Rules {
			if slices.Contains(rule.APIGroups, "coordination.k8s.io") && slices.Contains(rule.Resources, "leases") && len(rule.ResourceNames) == 0 {
				for _, verb := range rule.Verbs {
					granted[verb] = true
				}
			}
		}
	}
	for _, verb := range need {
		if !granted[verb] {
			t.Errorf("%s may not %s the Leases of %s", account, verb, d.Namespace)
		}
	}
}
