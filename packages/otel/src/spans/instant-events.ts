/**
 * The log arms that happen at an instant, as span events: inputs, approvals, hook feedback, engine
 * notes (hook failures, model retries, budgets), interrupts and resumes, children, compaction,
 * wakes, external tools. Who and how, never what: a text appears only with content capture on.
 */
import type { StoredEvent } from "@sema-agent/core";
import { GEN_AI, SEMA, SPAN_EVENT } from "../attributes.ts";
import type { SpanAttributes } from "./span-record.ts";

/** A span event's name and attributes, before it is placed on a span. */
export interface Instant {
  name: string;
  attributes: SpanAttributes;
}

function actorOf(actor: { id: string; verified: boolean } | undefined): SpanAttributes {
  return actor === undefined ? {} : { "sema.actor.id": actor.id, "sema.actor.verified": actor.verified };
}

/** The span event of `event`, or undefined for an arm that is a span of its own (or nothing). */
export function instantOf(event: StoredEvent, captureContent: boolean): Instant | undefined {
  switch (event.type) {
    case "human_input": {
      const attributes: SpanAttributes = {
        "sema.input.id": event.inputId,
        "sema.input.carrier": event.carrier,
        "sema.input.lane": event.source,
        "sema.input.delivery": event.delivery,
        "sema.input.verified": event.actor?.verified ?? false,
      };
      if (event.actor !== undefined) attributes["sema.input.actor.id"] = event.actor.id;
      if (event.policy !== undefined) attributes["sema.input.policy"] = event.policy;
      if (captureContent && event.text !== undefined) attributes["sema.input.text"] = event.text;
      return { name: SPAN_EVENT.humanInput, attributes };
    }
    case "approval_requested":
      return {
        name: SPAN_EVENT.approvalRequested,
        attributes: { [GEN_AI.toolName]: event.name, [GEN_AI.toolCallId]: event.callId },
      };
    case "approval_decided": {
      const attributes: SpanAttributes = {
        [GEN_AI.toolCallId]: event.callId,
        [SEMA.approvalDecision]: event.decision,
        [SEMA.approvalActor]: event.actor.id,
        [SEMA.approvalVerified]: event.actor.verified,
      };
      if (event.scope !== undefined) attributes["sema.approval.scope"] = event.scope;
      return { name: SPAN_EVENT.approvalDecided, attributes };
    }
    case "hook_feedback": {
      const attributes: SpanAttributes = { "sema.hook.name": event.hook };
      if (captureContent) attributes["sema.hook.content"] = event.content;
      return { name: SPAN_EVENT.hookFeedback, attributes };
    }
    case "engine_note": {
      const attributes: SpanAttributes = { "sema.note.kind": event.kind };
      if (captureContent) attributes["sema.note.text"] = event.text;
      return { name: SPAN_EVENT.note, attributes };
    }
    case "interrupt_requested":
      return { name: SPAN_EVENT.interrupt, attributes: actorOf(event.actor) };
    case "resume_requested":
      return { name: SPAN_EVENT.resume, attributes: actorOf(event.actor) };
    case "child_task": {
      const attributes: SpanAttributes = { "sema.child.phase": event.phase, "sema.child.task_id": event.childTaskId };
      if (event.callId !== undefined) attributes[GEN_AI.toolCallId] = event.callId;
      if (event.status !== undefined) attributes["sema.child.status"] = event.status;
      if (event.usage !== undefined) {
        attributes[GEN_AI.inputTokens] = event.usage.inputTokens;
        attributes[GEN_AI.outputTokens] = event.usage.outputTokens;
      }
      return { name: SPAN_EVENT.child, attributes };
    }
    case "compaction":
      return { name: SPAN_EVENT.compaction, attributes: { "sema.compaction.through_seq": event.throughSeq } };
    case "wake_scheduled":
      return {
        name: SPAN_EVENT.wake,
        attributes: { "sema.wake.id": event.wakeId, "sema.wake.due": event.due, "sema.wake.source": event.source },
      };
    case "external_tools":
      return {
        name: SPAN_EVENT.externalTools,
        attributes: { "sema.external_tools.names": event.tools.map((tool) => tool.name) },
      };
    default:
      return undefined;
  }
}
