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

package apply

import (
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRulesAllow(t *testing.T) {
	configMaps := Permission{Verb: "create", Resource: schema.GroupResource{Resource: "configmaps"}, Namespace: "team-a"}
	deployments := Permission{Verb: "patch", Resource: schema.GroupResource{Group: "apps", Resource: "deployments"}, Namespace: "team-a"}
	clusterRoles := Permission{Verb: "create", Resource: schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}}
	rule := func(verbs, groups, resources []string, names ...string) authorizationv1.ResourceRule {
		return authorizationv1.ResourceRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
	}
	all := []string{"*"}
	tests := []struct {
		name   string
		status authorizationv1.SubjectRulesReviewStatus
		ask    Permission
		want   bool
	}{
		{name: "a rule naming the verb, group and resource", ask: configMaps, want: true,
			status: authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{rule([]string{"get", "create"}, []string{""}, []string{"configmaps"})}}},
		{name: "wildcards", ask: deployments, want: true,
			status: authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{rule(all, all, all)}}},
		{name: "another verb", ask: configMaps,
			status: authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{rule([]string{"get"}, []string{""}, []string{"configmaps"})}}},
		{name: "another group", ask: deployments,
			status: authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{rule(all, []string{""}, []string{"deployments"})}}},
		{name: "a rule of some names grants no create", ask: configMaps,
			status: authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{rule(all, all, all, "settings")}}},
		{name: "a list the review says is incomplete", ask: configMaps,
			status: authorizationv1.SubjectRulesReviewStatus{Incomplete: true, ResourceRules: []authorizationv1.ResourceRule{rule(all, all, all)}}},
		{name: "a review that failed in part", ask: configMaps,
			status: authorizationv1.SubjectRulesReviewStatus{EvaluationError: "a role could not be read", ResourceRules: []authorizationv1.ResourceRule{rule(all, all, all)}}},
		{name: "a cluster-scoped permission, which a namespace's RoleBindings cannot grant", ask: clusterRoles,
			status: authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{rule(all, all, all)}}},
		{name: "more rules than are kept", ask: configMaps,
			status: authorizationv1.SubjectRulesReviewStatus{ResourceRules: make([]authorizationv1.ResourceRule, maxRules+1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rulesOf(tt.status, time.Now()).allows(tt.ask); got != tt.want {
				t.Errorf("allows(%s) = %v, want %v", tt.ask, got, tt.want)
			}
		})
	}
}

func TestRulesReuse(t *testing.T) {
	c := NewPermissions(time.Minute)
	asked := 0
	review := func() (namespaceRules, error) { asked++; return namespaceRules{complete: true, at: time.Now()}, nil }
	for range 3 {
		if _, err := c.rulesIn("team-a", review); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times within the rules' lifetime, want once", asked)
	}
	c.Forget()
	racing := func() (namespaceRules, error) {
		asked++
		c.Forget()
		return namespaceRules{complete: true, at: time.Now()}, nil
	}
	if _, err := c.rulesIn("team-a", racing); err != nil {
		t.Fatal(err)
	}
	if _, err := c.rulesIn("team-a", review); err != nil || asked != 3 {
		t.Errorf("rules asked for before a Forget were kept (asked %d times, %v)", asked, err)
	}
}
