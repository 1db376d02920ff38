/**
 * BNS-V2 name lifecycle with the real contract's events and print tuples: name-claim-fast (new-name),
 * transfer (transfer-name), name-renewal (renew-name), mng-burn (burn-name). A name is always
 * registered before it is transferred, renewed or burned; after burn-name it has no owner.
 */
import { Cl, type ClarityValue } from "@stacks/transactions";
import { asciiHex, bufferFromHex, cvRaw, principalCv } from "./clarity-hex.js";
import { type ActionContext, type TxPlan, contractCall, pickOtherUser, pickUser, userAccount } from "./action-kit.js";
import * as ev from "./events.js";
import type { BnsName } from "./state.js";

const NAMESPACES = ["btc", "stx", "id"];
const STEMS = ["satoshi", "muneeb", "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"];
/** Burn blocks a registration lasts (the simnet namespace's lifetime). */
const LIFETIME = 5000;
const NAME_PRICE = 10;

export function fqnOf(name: BnsName): string {
  return `${name.name}.${name.namespace}`;
}

/** Picks the next lifecycle step for a random live name, or registers a new one. */
export function bnsAction(ctx: ActionContext): TxPlan {
  const { rng } = ctx;
  const live = rng.chance(0.6) ? findLiveName(ctx) : null;
  if (!live) return register(ctx);
  const r = rng.float();
  if (r < 0.4) return transfer(ctx, live);
  if (r < 0.75) return renew(ctx, live);
  return burn(ctx, live);
}

function findLiveName(ctx: ActionContext): BnsName | null {
  const last = ctx.state.counter("bnsLastId");
  if (last === 0) return null;
  for (let attempt = 0; attempt < 4; attempt++) {
    const name = ctx.state.bnsNames.get(ctx.rng.between(1, last));
    if (name) return name;
  }
  return null;
}

function nameTuple(name: BnsName): ClarityValue {
  return Cl.tuple({ name: bufferFromHex(asciiHex(name.name)), namespace: bufferFromHex(asciiHex(name.namespace)) });
}

/** The tuple BNS-V2 prints for new-name / transfer-name / renew-name. */
function namePrint(ctx: ActionContext, name: BnsName, topic: string, id: ClarityValue): ClarityValue {
  const owner = principalCv(userAccount(ctx, name.owner).address);
  return Cl.tuple({
    id,
    name: nameTuple(name),
    owner,
    properties: Cl.some(
      Cl.tuple({
        "hashed-salted-fqn-preorder": name.preorderHash ? Cl.some(bufferFromHex(name.preorderHash)) : Cl.none(),
        "imported-at": Cl.none(),
        owner,
        "preordered-by": name.preorderHash ? Cl.some(owner) : Cl.none(),
        "registered-at": Cl.some(Cl.uint(name.registeredAt)),
        "renewal-height": Cl.uint(name.renewalHeight),
        "stx-burn": Cl.uint(NAME_PRICE),
      }),
    ),
    topic: Cl.stringAscii(topic),
  });
}

function register(ctx: ActionContext): TxPlan {
  const { rng, state, contracts } = ctx;
  const ownerIndex = pickUser(ctx);
  const owner = userAccount(ctx, ownerIndex);
  const id = state.counter("bnsLastId") + 1;
  const name: BnsName = {
    id,
    name: `${rng.pick(STEMS)}${id}`,
    namespace: rng.pick(NAMESPACES),
    owner: ownerIndex,
    registeredAt: ctx.burnHeight,
    renewalHeight: ctx.burnHeight + LIFETIME,
    preorderHash: null,
  };
  const idCv = Cl.uint(id);
  const args = [
    bufferFromHex(asciiHex(name.name)),
    bufferFromHex(asciiHex(name.namespace)),
    principalCv(owner.address),
  ];
  const events = [
    ev.stxBurn(owner.address, NAME_PRICE),
    ev.nftMint(contracts.bnsAsset, cvRaw(idCv), owner.address),
    ev.print(contracts.bns, namePrint(ctx, name, "new-name", idCv)),
  ];
  const ops = [{ topic: "new-name" as const, fqn: fqnOf(name), id, owner: owner.address }];
  return contractCall(
    ctx,
    owner,
    contracts.bns,
    "name-claim-fast",
    args,
    Cl.ok(idCv),
    events,
    () => {
      state.bump("bnsLastId");
      state.set(state.bnsNames, id, name);
    },
    ops,
  );
}

function transfer(ctx: ActionContext, name: BnsName): TxPlan {
  const { state, contracts } = ctx;
  const to = pickOtherUser(ctx, name.owner);
  const sender = userAccount(ctx, name.owner);
  const recipient = userAccount(ctx, to);
  const moved: BnsName = { ...name, owner: to };
  const idCv = Cl.uint(name.id);
  const args = [idCv, principalCv(sender.address), principalCv(recipient.address)];
  const events = [
    ev.nftTransfer(contracts.bnsAsset, cvRaw(idCv), sender.address, recipient.address),
    ev.print(contracts.bns, namePrint(ctx, moved, "transfer-name", idCv)),
  ];
  const ops = [{ topic: "transfer-name" as const, fqn: fqnOf(name), id: name.id, owner: recipient.address }];
  return contractCall(
    ctx,
    sender,
    contracts.bns,
    "transfer",
    args,
    Cl.ok(Cl.bool(true)),
    events,
    () => state.set(state.bnsNames, name.id, moved),
    ops,
  );
}

function renew(ctx: ActionContext, name: BnsName): TxPlan {
  const { state, contracts } = ctx;
  const owner = userAccount(ctx, name.owner);
  const renewed: BnsName = { ...name, renewalHeight: Math.max(name.renewalHeight, ctx.burnHeight) + LIFETIME };
  const args = [bufferFromHex(asciiHex(name.namespace)), bufferFromHex(asciiHex(name.name))];
  // The real contract prints the id as an optional here.
  const events = [
    ev.print(contracts.bns, namePrint(ctx, renewed, "renew-name", Cl.some(Cl.uint(name.id)))),
    ev.stxBurn(owner.address, NAME_PRICE),
  ];
  const ops = [{ topic: "renew-name" as const, fqn: fqnOf(name), id: name.id, owner: owner.address }];
  return contractCall(
    ctx,
    owner,
    contracts.bns,
    "name-renewal",
    args,
    Cl.ok(Cl.bool(true)),
    events,
    () => state.set(state.bnsNames, name.id, renewed),
    ops,
  );
}

/** mng-burn by the namespace manager (the deployer); the print carries owner "". */
function burn(ctx: ActionContext, name: BnsName): TxPlan {
  const { state, contracts } = ctx;
  const owner = userAccount(ctx, name.owner);
  const idCv = Cl.uint(name.id);
  const printed = Cl.tuple({
    id: idCv,
    name: nameTuple(name),
    owner: Cl.stringAscii(""),
    topic: Cl.stringAscii("burn-name"),
  });
  const events = [ev.nftBurn(contracts.bnsAsset, cvRaw(idCv), owner.address), ev.print(contracts.bns, printed)];
  const ops = [{ topic: "burn-name" as const, fqn: fqnOf(name), id: name.id, owner: null }];
  return contractCall(
    ctx,
    ctx.accounts.deployer,
    contracts.bns,
    "mng-burn",
    [idCv],
    Cl.ok(Cl.bool(true)),
    events,
    () => state.set(state.bnsNames, name.id, undefined),
    ops,
  );
}
