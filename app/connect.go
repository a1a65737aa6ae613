package app

import "checkpoint-explorer/backend/connect"

// ConnectionTest is the answer of TestConnection.
type ConnectionTest struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	Jobs    int    `json:"jobs"`
	Message string `json:"message"`
}

// TestConnection checks that the cluster answers, without saving it. A failed
// connection is an answer (OK false, Message why), not an error.
func (a *App) TestConnection(in ClusterInput) (ConnectionTest, error) {
	c := in.cluster()
	if old, ok := a.configuredCluster(c.Name); ok && old.Auth.Kind == c.Auth.Kind {
		if c.Auth.Password == "" {
			c.Auth.Password = old.Auth.Password
		}
		if c.Auth.Token == "" {
			c.Auth.Token = old.Auth.Token
		}
	}
	if c.Name == "" {
		c.Name = "test"
	}
	if err := validateCluster(c); err != nil {
		return ConnectionTest{Message: err.Error()}, nil
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	return ConnectionTest(connect.Test(ctx, c)), nil
}
