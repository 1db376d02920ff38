/**
 * `sluice mcp` (README "MCP"): a Model Context Protocol server over stdio whose tools are the
 * instance's index, streams, subgraphs and webhooks operations, with input schemas from the
 * instance's own OpenAPI document (runtime/sdk/mcp-tools.ts). Write tools need the token
 * (--token or SLUICE_TOKEN); without it they answer with an error result saying so.
 * stdout carries the protocol: nothing else is printed there.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Command } from "commander";
import { callTool, toolsOf } from "../../sdk/mcp-tools.js";
import { type ApiOptions, clientOf, DEFAULT_URL, run } from "./common.js";

const text = (value: unknown) => [{ type: "text" as const, text: JSON.stringify(value, null, 2) }];

export function registerMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description("a Model Context Protocol server over stdio with the instance's API as tools")
    .option("--url <url>", `service address (env SLUICE_URL; default ${DEFAULT_URL})`)
    .option("--token <token>", "instance token, needed by the write tools (env SLUICE_TOKEN)")
    .action((o: ApiOptions) =>
      run(async () => {
        const url = o.url ?? process.env.SLUICE_URL ?? DEFAULT_URL;
        const token = o.token ?? process.env.SLUICE_TOKEN ?? undefined;
        const doc = (await clientOf({ url, token }).openapi()) as Parameters<typeof toolsOf>[0];
        const tools = toolsOf(doc);
        const server = new Server({ name: "sluice", version: "1" }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, async () => ({
          tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
        }));
        server.setRequestHandler(CallToolRequestSchema, async (request) => {
          const tool = tools.find((t) => t.name === request.params.name);
          if (!tool) return { isError: true, content: text({ error: `no tool ${request.params.name}` }) };
          if (tool.needsToken && !token) {
            return {
              isError: true,
              content: text({
                error: `${tool.name} needs the instance token: start sluice mcp with --token or SLUICE_TOKEN`,
              }),
            };
          }
          const result = await callTool(tool, request.params.arguments ?? {}, { url, token });
          return {
            isError: !result.ok,
            content: text(result.ok ? result.body : { status: result.status, ...(result.body as object) }),
          };
        });
        await server.connect(new StdioServerTransport());
        // Serve until the client closes stdin.
        await new Promise<void>((resolve) => process.stdin.once("close", resolve));
      }),
    );
}
