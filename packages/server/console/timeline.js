// The task's legs, turns and tool calls with their durations, computed from the events' `at`
// times. A turn has no start event of its own: it is timed from the event before it in its leg
// (the leg's start, an input, a tool result), which is when the model was asked.

const ms = (a, b) => Math.max(0, Date.parse(b) - Date.parse(a));

export function formatDuration(duration) {
  if (duration === undefined) return "running";
  if (duration < 1000) return `${duration} ms`;
  if (duration < 60_000) return `${(duration / 1000).toFixed(1)} s`;
  return `${Math.floor(duration / 60_000)} min ${Math.round((duration % 60_000) / 1000)} s`;
}

/** `[{ legId, trigger, reason?, start, duration?, items: [{ kind, label, start, duration? }] }]` */
export function buildTimeline(events) {
  const legs = [];
  const calls = new Map();
  const waits = new Map();
  let leg;
  let previousAt;
  for (const event of events) {
    if (event.type === "leg_started") {
      leg = { legId: event.legId, trigger: event.trigger, start: event.at, items: [] };
      legs.push(leg);
    } else if (leg !== undefined) {
      if (event.type === "task_forked") {
        // A fork (or an import) copied a leg that was still open: the copy ends it there.
        leg.reason = "forked";
        leg.duration = ms(leg.start, event.at);
        leg = undefined;
      } else if (event.type === "leg_ended") {
        leg.reason = event.reason;
        leg.duration = ms(leg.start, event.at);
        // A call still open when its leg ends stays open (an approval wait) or is over.
        leg = undefined;
      } else if (event.type === "model_turn") {
        leg.items.push({
          kind: "turn",
          label:
            "Turn " +
            event.sessionSeq +
            (event.toolCalls.length ? `: calls ${event.toolCalls.map((c) => c.name).join(", ")}` : ""),
          start: previousAt,
          duration: ms(previousAt, event.at),
        });
      } else if (event.type === "tool_call_started") {
        const item = { kind: "tool", label: `Tool ${event.name}`, start: event.at };
        calls.set(event.callId, item);
        leg.items.push(item);
      }
    }
    if (event.type === "tool_result") {
      const item = calls.get(event.callId);
      if (item !== undefined) {
        item.duration = ms(item.start, event.at);
        item.label += `: ${event.status}`;
      }
    } else if (event.type === "approval_requested" && leg !== undefined) {
      const item = { kind: "wait", label: `Waiting for approval of ${event.name}`, start: event.at };
      waits.set(event.callId, item);
      leg.items.push(item);
    } else if (event.type === "approval_decided") {
      const item = waits.get(event.callId);
      if (item !== undefined) {
        item.duration = ms(item.start, event.at);
        item.label += `: ${event.decision}d by ${event.actor.id}`;
      }
    }
    previousAt = event.at;
  }
  return legs;
}

/** Render into `list` (an `<ol>`), with `el` from task-log.js. Bars are scaled to the longest leg. */
export function renderTimeline(list, events, el) {
  const legs = buildTimeline(events);
  const now = new Date().toISOString();
  const longest = Math.max(1, ...legs.map((leg) => leg.duration ?? ms(leg.start, now)));
  const bar = (kind, duration) => {
    const node = el("span", { className: `bar ${kind}`, ariaHidden: "true" });
    // CSSOM, not a style attribute: allowed by the page's strict Content-Security-Policy.
    node.style.width = `${Math.max(0.2, Math.min(100, ((duration ?? 0) / longest) * 100)) * 0.3}rem`;
    return node;
  };
  list.replaceChildren(
    ...legs.map((leg, index) =>
      el(
        "li",
        { dataset: { leg: leg.legId } },
        "Leg " +
          (index + 1) +
          " (" +
          leg.trigger +
          (leg.reason ? ` → ${leg.reason}` : "") +
          "): " +
          formatDuration(leg.duration),
        bar("leg", leg.duration ?? ms(leg.start, now)),
        el(
          "ol",
          {},
          ...leg.items.map((item) =>
            el(
              "li",
              { dataset: { kind: item.kind } },
              `${item.label} — ${formatDuration(item.duration)}`,
              bar(item.kind, item.duration),
            ),
          ),
        ),
      ),
    ),
  );
}
