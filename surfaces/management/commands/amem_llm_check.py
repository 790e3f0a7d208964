"""Call each LLM tier once and report provider, model, latency and tokens."""

from __future__ import annotations

from engine import runtime
from memories.models import LlmCall
from surfaces.management.base import AmemCommand

# One cheap role per tier: construct runs on fast, should_merge on strong.
PROBES = (
    ("construct", "fast", lambda llm: llm.construct("The team moved the weekly sync to Tuesday mornings.")),
    (
        "should_merge",
        "strong",
        lambda llm: llm.should_merge("Alex drinks flat whites.", "Alex's usual coffee is a flat white."),
    ),
)


class Command(AmemCommand):
    help = "Call each LLM tier once (fast: construct, strong: should_merge) and report what answered."

    def handle(self, *args, **options):
        llm = runtime.llm()
        failed = 0
        for role, tier, probe in PROBES:
            before = LlmCall.objects.count()
            answer = probe(llm)
            record = LlmCall.objects.order_by("-id").first() if LlmCall.objects.count() > before else None
            if record is None:
                self.stdout.write(f"{tier:6} {role}: no call recorded")
                failed += 1
                continue
            ok = record.outcome in ("ok", "offline")
            failed += 0 if ok else 1
            self.stdout.write(
                f"{tier:6} {record.provider}/{record.model}: {record.outcome}, {record.latency_ms:.0f} ms, "
                f"{record.tokens_in} in / {record.tokens_out} out" + (f" — {record.error}" if record.error else "")
            )
            self.stdout.write(f"       {role} → {answer}")
        if llm.is_offline("construct"):
            self.stdout.write(
                "Provider 'none': the offline rules answered (lower quality than a model; see docs/llm.md)."
            )
        if failed:
            raise SystemExit(1)
