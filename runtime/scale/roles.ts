/**
 * Process roles (README "Running several processes"): one binary, one configuration, and ROLE (or
 * `sluice start --role`) deciding which of the service's duties this process takes on. `all` is
 * the single-process service; the others split it across processes sharing one PostgreSQL database.
 */

export const ROLES = ["all", "api", "ingest", "dispatcher"] as const;
export type Role = (typeof ROLES)[number];

export interface RoleDuties {
  /** Binds the observer port and journals what the stacks-node posts. */
  observes: boolean;
  /**
   * Applies journaled requests: always (`all`, the only ingesting process), or only while it holds
   * the ingest leadership (`ingest`, one of several standbys).
   */
  applies: "always" | "when-leader" | "never";
  /** Runs a webhook delivery worker. */
  delivers: boolean;
}

export function dutiesOf(role: Role): RoleDuties {
  switch (role) {
    case "all":
      return { observes: true, applies: "always", delivers: true };
    case "ingest":
      return { observes: true, applies: "when-leader", delivers: false };
    case "dispatcher":
      return { observes: false, applies: "never", delivers: true };
    case "api":
      return { observes: false, applies: "never", delivers: false };
  }
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
