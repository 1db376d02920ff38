/**
 * The console's shell: asks /status whether a token is needed, shows the login form when it is,
 * then routes `#/<page>/...` to the pages. Each page gets an AbortSignal that ends its streams
 * and timers when the operator leaves it.
 */
import { api, ApiError, forgetToken, storedToken, storeToken, UNAUTHORIZED_EVENT } from "./api.js";
import { h, replace } from "./dom.js";
import { renderChain } from "./pages/chain.js";
import { renderOverview } from "./pages/overview.js";
import { renderSubgraphs } from "./pages/subgraphs.js";
import { renderWebhooks } from "./pages/webhooks.js";

export type Page = (root: HTMLElement, args: string[], signal: AbortSignal) => void | Promise<void>;

const PAGES: Record<string, { title: string; render: Page }> = {
  overview: { title: "Overview", render: renderOverview },
  subgraphs: { title: "Subgraphs", render: renderSubgraphs },
  webhooks: { title: "Webhooks", render: renderWebhooks },
  chain: { title: "Chain", render: renderChain },
};

const app = document.getElementById("app") as HTMLElement;
let current: AbortController | null = null;

function route(): { page: string; args: string[] } {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  const page = parts[0] && PAGES[parts[0]] ? parts[0] : "overview";
  return { page, args: parts.slice(1) };
}

function showApp(): void {
  current?.abort();
  current = new AbortController();
  const { page, args } = route();
  const main = h("main", { attrs: { "data-page": page } });
  const nav = h(
    "nav",
    null,
    h("span", { class: "brand" }, "sluice"),
    Object.entries(PAGES).map(([key, p]) =>
      h("a", { attrs: { href: `#/${key}`, "aria-current": key === page ? "page" : undefined } }, p.title),
    ),
    storedToken()
      ? h(
          "button",
          { class: "link", attrs: { type: "button", "data-testid": "sign-out" }, on: { click: signOut } },
          "Sign out",
        )
      : null,
  );
  replace(app, nav, main);
  document.title = `${PAGES[page].title} · sluice console`;
  void Promise.resolve(PAGES[page].render(main, args, current.signal)).catch((err) => {
    if (!current?.signal.aborted) main.append(h("p", { class: "error" }, String(err)));
  });
}

function signOut(): void {
  forgetToken();
  showLogin();
}

function showLogin(message = ""): void {
  current?.abort();
  current = null;
  const input = h("input", {
    attrs: {
      type: "password",
      name: "token",
      autocomplete: "current-password",
      required: true,
      "aria-label": "Instance token",
    },
  });
  const note = h("p", { class: "error", attrs: { role: "alert", "data-testid": "login-error" } }, message);
  const form = h(
    "form",
    { class: "login", attrs: { "data-testid": "login" } },
    h("h1", null, "sluice console"),
    h("p", null, "This instance needs its instance token (INSTANCE_TOKEN). It is kept in this tab only."),
    h("label", null, "Instance token ", input),
    h("button", { attrs: { type: "submit" } }, "Sign in"),
    note,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const candidate = input.value.trim();
    try {
      await api("GET", "/status", undefined, { token: candidate });
      storeToken(candidate);
      showApp();
    } catch (err) {
      note.textContent =
        err instanceof ApiError && err.status === 401 ? "That token was refused." : `Could not sign in: ${String(err)}`;
    }
  });
  replace(app, form);
  input.focus();
}

async function boot(): Promise<void> {
  window.addEventListener(UNAUTHORIZED_EVENT, () => {
    const hadToken = storedToken() !== null;
    forgetToken();
    showLogin(hadToken ? "The instance token was refused: sign in again." : "");
  });
  window.addEventListener("hashchange", () => {
    if (current) showApp();
  });
  try {
    await api("GET", "/status");
    showApp();
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) replace(app, h("p", { class: "error" }, String(err)));
  }
}

void boot();
