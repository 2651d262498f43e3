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

package webhooks

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The install ships the operator's webhook configurations empty
// (config/webhook), and the operator may update and patch them by name only
// (config/rbac), and create none: a right to create webhook configurations
// is a right to intercept any write, and RBAC names no object in a plain
// create. A registrar therefore makes sure its configuration exists before
// it applies its entries (an apply would create it), and says so when it
// does not, instead of creating it.

// MissingError says that a webhook configuration the install ships does not
// exist.
type MissingError struct {
	// Kind is MutatingWebhookConfiguration or ValidatingWebhookConfiguration.
	Kind, Name string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s %s does not exist: it is part of the install (config/webhook), and the operator, "+
		"which may update it but not create it, waits for it; apply the install again", e.Kind, e.Name)
}

// IsMissing reports whether err says a shipped configuration does not exist.
func IsMissing(err error) bool {
	var missing *MissingError
	return errors.As(err, &missing)
}

// RequireShipped reads the configuration named by obj, of kind, into obj;
// a *MissingError when it does not exist.
func RequireShipped(ctx context.Context, reader client.Reader, obj client.Object, kind string) error {
	err := reader.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return &MissingError{Kind: kind, Name: obj.GetName()}
	}
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", kind, obj.GetName(), err)
	}
	return nil
}
