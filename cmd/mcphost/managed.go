package main

// The administrator's managed layer in the commands: what it blocks is
// refused with its own words (the rule and the file), before anything is
// written or started.

// refuseBlocked is a usage error naming the rule that blocks server id,
// nil when no rule does (or the id is not configured: the command says
// that itself).
func (a *app) refuseBlocked(command, id string) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	for _, s := range cfg.Servers {
		if s.ID == id && s.Blocked != "" {
			return usageError("%s: server %q is %s", command, id, s.Blocked)
		}
	}
	return nil
}
