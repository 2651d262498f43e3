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

// Package controllers holds the operator's reconcilers, one package per reconciled
// kind (controllers/<name>, each exporting a Reconciler). They are glue: they map
// API objects onto the pure libraries in pkg/ and report the results in status,
// Events and metrics.
//
// The permissions below are those every reconciler shares; each reconciler adds
// its own markers beside its code. They are the verbs the code uses, no more:
// the reconcilers read their objects from the cache (list and watch), write
// them and their status with patches (a finalizer too), and set no owner
// reference that blocks their deletion, so they need no update of them or of
// their finalizers. cmd/manager's rbac_audit_test.go fails on a verb granted
// and never used. Events go through the events.k8s.io API; only leader
// election records a core Event, in the operator's namespace
// (config/rbac/leader_election_role.yaml).
//
// +kubebuilder:rbac:groups=apply.applyset.dev,resources=applysets;clusterapplysets,verbs=list;watch;patch
// +kubebuilder:rbac:groups=apply.applyset.dev,resources=applysets/status;clusterapplysets/status,verbs=patch
// +kubebuilder:rbac:groups=features.applyset.dev,resources=customfeaturegates,verbs=list;watch
// +kubebuilder:rbac:groups=features.applyset.dev,resources=customfeaturegates/status,verbs=patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
package controllers
