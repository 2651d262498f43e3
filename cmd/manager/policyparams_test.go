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
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The ServiceAccount policy exempts the default ServiceAccount it reads from
// a ConfigMap; every install overlay ships that ConfigMap saying what each
// manager's --default-service-account says, where the policy's binding finds
// it.
func TestServiceAccountPolicyAgreesWithTheManager(t *testing.T) {
	for _, overlay := range []string{"second-shard", "replicas", "cluster-writer"} {
		t.Run(overlay, func(t *testing.T) {
			var binding *admissionv1.ValidatingAdmissionPolicyBinding
			configMaps := map[string]*corev1.ConfigMap{}
			var managers []appsv1.Deployment
			for _, res := range buildOverlay(t, overlay) {
				switch res.GetKind() {
				case "ValidatingAdmissionPolicyBinding":
					b := &admissionv1.ValidatingAdmissionPolicyBinding{}
					decodeResource(t, res, b)
					if b.Spec.PolicyName == "applyset-operator-applyset-service-account-authority" {
						binding = b
					}
				case "ConfigMap":
					cm := &corev1.ConfigMap{}
					decodeResource(t, res, cm)
					configMaps[cm.Namespace+"/"+cm.Name] = cm
				case "Deployment":
					d := appsv1.Deployment{}
					decodeResource(t, res, &d)
					managers = append(managers, d)
				}
			}
			if binding == nil || binding.Spec.ParamRef == nil {
				t.Fatalf("no binding of the ServiceAccount policy with a paramRef")
			}
			ref := binding.Spec.ParamRef
			params := configMaps[ref.Namespace+"/"+ref.Name]
			if params == nil {
				t.Fatalf("the binding reads ConfigMap %s/%s, which the install does not ship (it ships %v)", ref.Namespace, ref.Name, configMaps)
			}
			if len(managers) == 0 {
				t.Fatal("no manager Deployment")
			}
			for _, d := range managers {
				if d.Namespace != ref.Namespace {
					t.Errorf("%s runs in %s, the policy's parameters are in %s", d.Name, d.Namespace, ref.Namespace)
				}
				o, err := parseFlags(d.Spec.Template.Spec.Containers[0].Args...)
				if err != nil {
					t.Fatalf("%s: %v", d.Name, err)
				}
				if got := params.Data["serviceAccountName"]; got != o.defaultServiceAccount {
					t.Errorf("%s runs with --default-service-account=%q, the policy exempts %q", d.Name, o.defaultServiceAccount, got)
				}
			}
		})
	}
}
