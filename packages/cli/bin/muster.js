#!/usr/bin/env node
// The `muster` command. Its code ships in the library (`muster-agent/cli`, which runs the
// command line when imported); this package adds the packages the command and the studio need
// (commander, @inquirer/prompts, ora, hono, @hono/node-server), which the library leaves out.
import 'muster-agent/cli';
