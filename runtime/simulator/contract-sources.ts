/**
 * Clarity sources and ABIs (the node's `contract_interface`) of the contracts the simulator deploys:
 * SIP-010 tokens, SIP-009 collections, a utility contract, and on devnet small stand-ins for BNS-V2
 * and the sBTC contracts that print the same tuple shapes as the real ones.
 */

export interface ContractSource {
  name: string;
  code: string;
  abi: ContractInterface;
}

export interface ContractInterface {
  functions: {
    name: string;
    access: "public" | "read_only";
    args: { name: string; type: AbiType }[];
    outputs: { type: AbiType };
  }[];
  variables: { name: string; type: AbiType; access: "variable" | "constant" }[];
  maps: { name: string; key: AbiType; value: AbiType }[];
  fungible_tokens: { name: string }[];
  non_fungible_tokens: { name: string; type: AbiType }[];
  epoch: string;
  clarity_version: string;
}

type AbiType = string | { [key: string]: unknown };

const UINT = "uint128";
const PRINCIPAL = "principal";
const BOOL = "bool";
const buff = (length: number): AbiType => ({ buffer: { length } });
const optional = (type: AbiType): AbiType => ({ optional: type });
const response = (ok: AbiType, error: AbiType = UINT): AbiType => ({ response: { ok, error } });
const ascii = (length: number): AbiType => ({ "string-ascii": { length } });

type FnSpec = [name: string, access: "public" | "read_only", args: [string, AbiType][], output: AbiType];

function abi(
  functions: FnSpec[],
  extra: Partial<Pick<ContractInterface, "variables" | "maps" | "fungible_tokens" | "non_fungible_tokens">> = {},
): ContractInterface {
  return {
    functions: functions.map(([name, access, args, output]) => ({
      name,
      access,
      args: args.map(([argName, type]) => ({ name: argName, type })),
      outputs: { type: output },
    })),
    variables: extra.variables ?? [],
    maps: extra.maps ?? [],
    fungible_tokens: extra.fungible_tokens ?? [],
    non_fungible_tokens: extra.non_fungible_tokens ?? [],
    epoch: "Epoch30",
    clarity_version: "Clarity3",
  };
}

/** A SIP-010 token whose asset is named `asset`; the deployer is the minter. */
export function sip010Token(name: string, asset: string, symbol: string): ContractSource {
  const code = `;; ${symbol}: SIP-010 token used by the sluice devnet simulator
(define-fungible-token ${asset})
(define-constant minter tx-sender)
(define-public (transfer (amount uint) (sender principal) (recipient principal) (memo (optional (buff 34))))
  (begin
    (asserts! (is-eq tx-sender sender) (err u4))
    (try! (ft-transfer? ${asset} amount sender recipient))
    (match memo note (print note) 0x)
    (ok true)))
(define-public (mint (amount uint) (recipient principal))
  (begin (asserts! (is-eq tx-sender minter) (err u401)) (ft-mint? ${asset} amount recipient)))
(define-public (burn (amount uint) (owner principal))
  (begin (asserts! (is-eq tx-sender minter) (err u401)) (ft-burn? ${asset} amount owner)))
(define-read-only (get-name) (ok "${symbol} token"))
(define-read-only (get-symbol) (ok "${symbol}"))
(define-read-only (get-decimals) (ok u6))
(define-read-only (get-balance (who principal)) (ok (ft-get-balance ${asset} who)))
(define-read-only (get-total-supply) (ok (ft-get-supply ${asset})))
(define-read-only (get-token-uri) (ok none))
`;
  return {
    name,
    code,
    abi: abi(
      [
        [
          "burn",
          "public",
          [
            ["amount", UINT],
            ["owner", PRINCIPAL],
          ],
          response(BOOL),
        ],
        [
          "mint",
          "public",
          [
            ["amount", UINT],
            ["recipient", PRINCIPAL],
          ],
          response(BOOL),
        ],
        [
          "transfer",
          "public",
          [
            ["amount", UINT],
            ["sender", PRINCIPAL],
            ["recipient", PRINCIPAL],
            ["memo", optional(buff(34))],
          ],
          response(BOOL),
        ],
        ["get-balance", "read_only", [["who", PRINCIPAL]], response(UINT, "none")],
        ["get-decimals", "read_only", [], response(UINT, "none")],
        ["get-name", "read_only", [], response(ascii(32), "none")],
        ["get-symbol", "read_only", [], response(ascii(8), "none")],
        ["get-token-uri", "read_only", [], response(optional(ascii(0)), "none")],
        ["get-total-supply", "read_only", [], response(UINT, "none")],
      ],
      { variables: [{ name: "minter", type: PRINCIPAL, access: "constant" }], fungible_tokens: [{ name: asset }] },
    ),
  };
}

/** A SIP-009 collection with uint ids; the deployer mints. */
export function sip009Collection(name: string, asset: string): ContractSource {
  const code = `;; ${asset}: SIP-009 collection used by the sluice devnet simulator
(define-non-fungible-token ${asset} uint)
(define-constant minter tx-sender)
(define-data-var last-id uint u0)
(define-public (mint (recipient principal))
  (let ((id (+ (var-get last-id) u1)))
    (asserts! (is-eq tx-sender minter) (err u401))
    (try! (nft-mint? ${asset} id recipient))
    (var-set last-id id)
    (ok id)))
(define-public (transfer (id uint) (sender principal) (recipient principal))
  (begin (asserts! (is-eq tx-sender sender) (err u403)) (nft-transfer? ${asset} id sender recipient)))
(define-public (burn (id uint))
  (nft-burn? ${asset} id tx-sender))
(define-read-only (get-last-token-id) (ok (var-get last-id)))
(define-read-only (get-token-uri (id uint)) (ok none))
(define-read-only (get-owner (id uint)) (ok (nft-get-owner? ${asset} id)))
`;
  return {
    name,
    code,
    abi: abi(
      [
        ["burn", "public", [["id", UINT]], response(BOOL)],
        ["mint", "public", [["recipient", PRINCIPAL]], response(UINT)],
        [
          "transfer",
          "public",
          [
            ["id", UINT],
            ["sender", PRINCIPAL],
            ["recipient", PRINCIPAL],
          ],
          response(BOOL),
        ],
        ["get-last-token-id", "read_only", [], response(UINT, "none")],
        ["get-owner", "read_only", [["id", UINT]], response(optional(PRINCIPAL), "none")],
        ["get-token-uri", "read_only", [["id", UINT]], response(optional(ascii(0)), "none")],
      ],
      {
        variables: [
          { name: "last-id", type: UINT, access: "variable" },
          { name: "minter", type: PRINCIPAL, access: "constant" },
        ],
        non_fungible_tokens: [{ name: asset, type: UINT }],
      },
    ),
  };
}

/** Logs, STX burns, and the devnet faucet (the simulated node reports its credits as stx_mint). */
export function utilityContract(name: string): ContractSource {
  const code = `;; sluice devnet simulator utilities
(define-data-var counter uint u0)
(define-public (log (message (string-ascii 64)))
  (let ((n (+ (var-get counter) u1)))
    (var-set counter n)
    (print {topic: "log", n: n, sender: tx-sender, message: message})
    (ok n)))
(define-public (burn-stx (amount uint))
  (stx-burn? amount tx-sender))
;; devnet faucet: the simulated node credits the recipient (stx_mint event)
(define-public (airdrop (recipient principal) (amount uint))
  (ok true))
`;
  return {
    name,
    code,
    abi: abi(
      [
        [
          "airdrop",
          "public",
          [
            ["recipient", PRINCIPAL],
            ["amount", UINT],
          ],
          response(BOOL, "none"),
        ],
        ["burn-stx", "public", [["amount", UINT]], response(BOOL)],
        ["log", "public", [["message", ascii(64)]], response(UINT, "none")],
      ],
      { variables: [{ name: "counter", type: UINT, access: "variable" }] },
    ),
  };
}

/**
 * A constant-product sBTC/STX pool (0.3% fee) for the hot mix: liquidity in, swaps either way,
 * each step printing a tuple with the amounts and the reserves after it.
 */
export function sbtcStxPool(name: string, sbtcTokenContractId: string): ContractSource {
  const token = `'${sbtcTokenContractId}`;
  const code = `;; ${name}: sBTC/STX constant-product pool used by the sluice devnet simulator
(define-data-var reserve-sbtc uint u0)
(define-data-var reserve-stx uint u0)
(define-private (out-for (amount-in uint) (reserve-in uint) (reserve-out uint))
  (/ (* (* amount-in u997) reserve-out) (+ (* reserve-in u1000) (* amount-in u997))))
(define-public (add-liquidity (sbtc-amount uint) (stx-amount uint))
  (begin
    (try! (contract-call? ${token} transfer sbtc-amount tx-sender (as-contract tx-sender) none))
    (try! (stx-transfer? stx-amount tx-sender (as-contract tx-sender)))
    (var-set reserve-sbtc (+ (var-get reserve-sbtc) sbtc-amount))
    (var-set reserve-stx (+ (var-get reserve-stx) stx-amount))
    (print {topic: "add-liquidity", provider: tx-sender, sbtc-amount: sbtc-amount, stx-amount: stx-amount, reserve-sbtc: (var-get reserve-sbtc), reserve-stx: (var-get reserve-stx)})
    (ok true)))
(define-public (swap-sbtc-for-stx (amount-in uint) (min-out uint))
  (let ((trader tx-sender) (out (out-for amount-in (var-get reserve-sbtc) (var-get reserve-stx))))
    (asserts! (and (> out u0) (>= out min-out)) (err u1))
    (try! (contract-call? ${token} transfer amount-in trader (as-contract tx-sender) none))
    (try! (as-contract (stx-transfer? out tx-sender trader)))
    (var-set reserve-sbtc (+ (var-get reserve-sbtc) amount-in))
    (var-set reserve-stx (- (var-get reserve-stx) out))
    (print {topic: "swap", trader: trader, token-in: "sbtc", amount-in: amount-in, amount-out: out, reserve-sbtc: (var-get reserve-sbtc), reserve-stx: (var-get reserve-stx)})
    (ok out)))
(define-public (swap-stx-for-sbtc (amount-in uint) (min-out uint))
  (let ((trader tx-sender) (out (out-for amount-in (var-get reserve-stx) (var-get reserve-sbtc))))
    (asserts! (and (> out u0) (>= out min-out)) (err u1))
    (try! (stx-transfer? amount-in trader (as-contract tx-sender)))
    (try! (as-contract (contract-call? ${token} transfer out tx-sender trader none)))
    (var-set reserve-stx (+ (var-get reserve-stx) amount-in))
    (var-set reserve-sbtc (- (var-get reserve-sbtc) out))
    (print {topic: "swap", trader: trader, token-in: "stx", amount-in: amount-in, amount-out: out, reserve-sbtc: (var-get reserve-sbtc), reserve-stx: (var-get reserve-stx)})
    (ok out)))
(define-read-only (get-reserves) (ok {sbtc: (var-get reserve-sbtc), stx: (var-get reserve-stx)}))
`;
  const amounts: [string, AbiType][] = [
    ["amount-in", UINT],
    ["min-out", UINT],
  ];
  return {
    name,
    code,
    abi: abi(
      [
        [
          "add-liquidity",
          "public",
          [
            ["sbtc-amount", UINT],
            ["stx-amount", UINT],
          ],
          response(BOOL),
        ],
        ["swap-sbtc-for-stx", "public", amounts, response(UINT)],
        ["swap-stx-for-sbtc", "public", amounts, response(UINT)],
        [
          "get-reserves",
          "read_only",
          [],
          response(
            {
              tuple: [
                { name: "sbtc", type: UINT },
                { name: "stx", type: UINT },
              ],
            },
            "none",
          ),
        ],
      ],
      {
        variables: [
          { name: "reserve-sbtc", type: UINT, access: "variable" },
          { name: "reserve-stx", type: UINT, access: "variable" },
        ],
      },
    ),
  };
}

/** A throwaway contract for the `deploy` mix entry. */
export function throwawayContract(name: string, value: number): ContractSource {
  return {
    name,
    code: `(define-read-only (get-value) u${value})\n`,
    abi: abi([["get-value", "read_only", [], UINT]]),
  };
}

const BNS_NAME = {
  tuple: [
    { name: "name", type: buff(48) },
    { name: "namespace", type: buff(20) },
  ],
};

/** Devnet stand-in for BNS-V2: the four name-lifecycle entry points with the real print shapes. */
export function bnsStandIn(): ContractSource {
  const code = `;; sluice devnet stand-in for BNS-V2 (prints the same topics and tuples)
(define-non-fungible-token BNS-V2 uint)
(define-data-var last-id uint u0)
(define-map index-to-name uint {name: (buff 48), namespace: (buff 20)})
(define-public (name-claim-fast (name (buff 48)) (namespace (buff 20)) (send-to principal))
  (let ((id (+ (var-get last-id) u1)))
    (try! (stx-burn? u10 tx-sender))
    (try! (nft-mint? BNS-V2 id send-to))
    (var-set last-id id)
    (map-set index-to-name id {name: name, namespace: namespace})
    (print {topic: "new-name", owner: send-to, name: {name: name, namespace: namespace}, id: id})
    (ok id)))
(define-public (transfer (id uint) (owner principal) (recipient principal))
  (begin
    (try! (nft-transfer? BNS-V2 id owner recipient))
    (print {topic: "transfer-name", owner: recipient, name: (map-get? index-to-name id), id: id})
    (ok true)))
(define-public (name-renewal (namespace (buff 20)) (name (buff 48)))
  (begin
    (print {topic: "renew-name", owner: tx-sender, name: {name: name, namespace: namespace}, id: none})
    (stx-burn? u10 tx-sender)))
(define-public (mng-burn (id uint))
  (begin
    (try! (nft-burn? BNS-V2 id (unwrap! (nft-get-owner? BNS-V2 id) (err u404))))
    (print {topic: "burn-name", owner: "", name: (map-get? index-to-name id), id: id})
    (ok true)))
`;
  return {
    name: "BNS-V2",
    code,
    abi: abi(
      [
        ["mng-burn", "public", [["id", UINT]], response(BOOL)],
        [
          "name-claim-fast",
          "public",
          [
            ["name", buff(48)],
            ["namespace", buff(20)],
            ["send-to", PRINCIPAL],
          ],
          response(UINT),
        ],
        [
          "name-renewal",
          "public",
          [
            ["namespace", buff(20)],
            ["name", buff(48)],
          ],
          response(BOOL),
        ],
        [
          "transfer",
          "public",
          [
            ["id", UINT],
            ["owner", PRINCIPAL],
            ["recipient", PRINCIPAL],
          ],
          response(BOOL),
        ],
      ],
      {
        variables: [{ name: "last-id", type: UINT, access: "variable" }],
        maps: [{ name: "index-to-name", key: UINT, value: BNS_NAME }],
        non_fungible_tokens: [{ name: "BNS-V2", type: UINT }],
      },
    ),
  };
}

/** Devnet stand-ins for the sBTC contracts (registry prints, token, deposit, withdrawal, signers). */
export function sbtcStandIns(): ContractSource[] {
  const registry = `;; sluice devnet stand-in for sbtc-registry: the print topics of the real registry
(define-data-var last-request-id uint u0)
(define-public (log-completed-deposit (txid (buff 32)) (vout-index uint) (amount uint) (burn-hash (buff 32)) (burn-height uint) (sweep-txid (buff 32)))
  (ok (print {topic: "completed-deposit", bitcoin-txid: txid, output-index: vout-index, amount: amount, burn-hash: burn-hash, burn-height: burn-height, sweep-txid: sweep-txid})))
(define-public (log-withdrawal (event (string-ascii 32)) (request-id uint))
  (ok (print {topic: event, request-id: request-id})))
`;
  const token = `;; sluice devnet stand-in for sbtc-token
(define-fungible-token sbtc-token)
(define-fungible-token sbtc-token-locked)
(define-public (transfer (amount uint) (sender principal) (recipient principal) (memo (optional (buff 34))))
  (begin
    (asserts! (is-eq tx-sender sender) (err u4))
    (try! (ft-transfer? sbtc-token amount sender recipient))
    (match memo note (print note) 0x)
    (ok true)))
(define-read-only (get-balance (who principal)) (ok (ft-get-balance sbtc-token who)))
`;
  const deposit = `;; sluice devnet stand-in for sbtc-deposit
(define-public (complete-deposit-wrapper (txid (buff 32)) (vout-index uint) (amount uint) (recipient principal) (burn-hash (buff 32)) (burn-height uint) (sweep-txid (buff 32)))
  (ok true))
`;
  const withdrawal = `;; sluice devnet stand-in for sbtc-withdrawal
(define-public (initiate-withdrawal-request (amount uint) (recipient {version: (buff 1), hashbytes: (buff 32)}) (max-fee uint))
  (ok u0))
(define-public (accept-withdrawal-request (request-id uint) (bitcoin-txid (buff 32)) (signer-bitmap uint) (output-index uint) (fee uint) (burn-hash (buff 32)) (burn-height uint) (sweep-txid (buff 32)))
  (ok true))
(define-public (reject-withdrawal-request (request-id uint) (signer-bitmap uint))
  (ok true))
`;
  const signers = `;; sluice devnet stand-in for sbtc-bootstrap-signers
(define-public (rotate-keys-wrapper (new-keys (list 128 (buff 33))) (new-aggregate-pubkey (buff 33)) (new-signature-threshold uint))
  (ok true))
`;
  const b32 = buff(32);
  return [
    {
      name: "sbtc-registry",
      code: registry,
      abi: abi(
        [
          [
            "log-completed-deposit",
            "public",
            [
              ["txid", b32],
              ["vout-index", UINT],
              ["amount", UINT],
              ["burn-hash", b32],
              ["burn-height", UINT],
              ["sweep-txid", b32],
            ],
            response(BOOL, "none"),
          ],
          [
            "log-withdrawal",
            "public",
            [
              ["event", ascii(32)],
              ["request-id", UINT],
            ],
            response(BOOL, "none"),
          ],
        ],
        { variables: [{ name: "last-request-id", type: UINT, access: "variable" }] },
      ),
    },
    {
      name: "sbtc-token",
      code: token,
      abi: abi(
        [
          [
            "transfer",
            "public",
            [
              ["amount", UINT],
              ["sender", PRINCIPAL],
              ["recipient", PRINCIPAL],
              ["memo", optional(buff(34))],
            ],
            response(BOOL),
          ],
          ["get-balance", "read_only", [["who", PRINCIPAL]], response(UINT, "none")],
        ],
        { fungible_tokens: [{ name: "sbtc-token" }, { name: "sbtc-token-locked" }] },
      ),
    },
    {
      name: "sbtc-deposit",
      code: deposit,
      abi: abi([
        [
          "complete-deposit-wrapper",
          "public",
          [
            ["txid", b32],
            ["vout-index", UINT],
            ["amount", UINT],
            ["recipient", PRINCIPAL],
            ["burn-hash", b32],
            ["burn-height", UINT],
            ["sweep-txid", b32],
          ],
          response(BOOL, "none"),
        ],
      ]),
    },
    {
      name: "sbtc-withdrawal",
      code: withdrawal,
      abi: abi([
        [
          "accept-withdrawal-request",
          "public",
          [
            ["request-id", UINT],
            ["bitcoin-txid", b32],
            ["signer-bitmap", UINT],
            ["output-index", UINT],
            ["fee", UINT],
            ["burn-hash", b32],
            ["burn-height", UINT],
            ["sweep-txid", b32],
          ],
          response(BOOL, "none"),
        ],
        [
          "initiate-withdrawal-request",
          "public",
          [
            ["amount", UINT],
            [
              "recipient",
              {
                tuple: [
                  { name: "hashbytes", type: b32 },
                  { name: "version", type: buff(1) },
                ],
              },
            ],
            ["max-fee", UINT],
          ],
          response(UINT, "none"),
        ],
        [
          "reject-withdrawal-request",
          "public",
          [
            ["request-id", UINT],
            ["signer-bitmap", UINT],
          ],
          response(BOOL, "none"),
        ],
      ]),
    },
    {
      name: "sbtc-bootstrap-signers",
      code: signers,
      abi: abi([
        [
          "rotate-keys-wrapper",
          "public",
          [
            ["new-keys", { list: { type: buff(33), length: 128 } }],
            ["new-aggregate-pubkey", buff(33)],
            ["new-signature-threshold", UINT],
          ],
          response(BOOL, "none"),
        ],
      ]),
    },
  ];
}
