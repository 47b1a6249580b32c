/**
 * For the experiment tests: a small geography dataset, an agent that looks each answer up (a
 * tool that counts its runs) and answers from what it found, in two variants (B gets Spain wrong),
 * and the scorers they are judged by. Offline and deterministic: the model is scripted per
 * transcript, so cases may run in any order and at any concurrency.
 */
import { type Agent, defineTool } from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import { ScriptedModel } from "@sema-agent/core/testing";
import { parseDataset } from "../datasets/parse-dataset.ts";
import { exactMatch } from "../scorers/exact-match.ts";
import { includes } from "../scorers/includes.ts";
import { toolTrajectory } from "../scorers/tool-trajectory.ts";

export const DATASET = [
  '{"id":"portugal","input":"Capital of Portugal?","expected":"Lisbon"}',
  '{"id":"france","input":"Capital of France?","expected":"Paris"}',
  '{"id":"spain","input":"Capital of Spain?","expected":"Madrid"}',
  '{"id":"italy","input":"Capital of Italy?","expected":"Rome","inputs":[{"text":"Answer in Italian","afterTurn":1}]}',
].join("\n");

export const dataset = () => parseDataset(DATASET);

const CAPITALS: Record<string, string> = { Portugal: "Lisbon", France: "Paris", Spain: "Madrid", Italy: "Rome" };

function country(request: ModelRequest): string {
  const first = request.transcript.find((e) => e.role === "user");
  const text = first?.role === "user" ? JSON.stringify(first) : "";
  return Object.keys(CAPITALS).find((name) => text.includes(name)) ?? "Nowhere";
}

/** The agent: look the capital up, then answer with it (variant B answers Barcelona for Spain). */
export function geoAgent(variant: "A" | "B" = "A"): { agent: Agent; model: ScriptedModel; runs: Map<string, number> } {
  const runs = new Map<string, number>();
  const lookup = defineTool({
    name: "lookup",
    description: "Look a country's capital up",
    inputSchema: { type: "object", properties: { country: { type: "string" } }, required: ["country"] },
    readOnly: true,
    idempotent: true,
    execute: (input) => {
      const name = String((input as { country: unknown }).country);
      runs.set(name, (runs.get(name) ?? 0) + 1);
      return CAPITALS[name] ?? "unknown";
    },
  });
  const model = new ScriptedModel(
    [
      (request) => ({ toolCalls: [{ name: "lookup", input: { country: country(request) } }] }),
      (request) => {
        const name = country(request);
        return { text: variant === "B" && name === "Spain" ? "Barcelona" : (CAPITALS[name] ?? "?") };
      },
    ],
    { mode: "by-transcript", id: `script:geo-${variant}` },
  );
  return { agent: { model, tools: [lookup] }, model, runs };
}

export const scorers = () => [exactMatch(), includes(), toolTrajectory({ calls: [{ name: "lookup" }] })];
