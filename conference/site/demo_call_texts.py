"""What the demo's call for proposals says: the call, its people, its proposals and their reviews
(loaded by conference/site/demo_call.py). Data only; every text is made up for the demo.

Each proposal names the steps it took after its draft (``path``); the loader takes them one by
one through the models' own methods. Days are counted back from the moment the demo is loaded.
"""

from dataclasses import dataclass, field

CALL_TEXT = """\
PyTorch Day Paris gathers the people who train, serve and build on PyTorch for one day of talks
and workshops. We look for sessions drawn from your own work:

- **Training at scale**: distributed training, memory, input pipelines, reproducibility;
- **Inference and deployment**: compilation, quantisation, serving, devices.

Talks last 30 minutes, lightning talks 10. Workshops run 90 minutes with attendees' laptops;
their deadline comes two weeks before the others', so that we can book the room's GPUs.
First-time speakers are welcome: say so in the notes and we pair you with a mentor.
"""

ACCEPTED_MAIL_SUBJECT = "{conference}: “{title}” is in the programme"
ACCEPTED_MAIL_BODY = """\
Hello {speaker},

The programme committee of {conference} accepted your proposal “{title}”. Thank you!

Please confirm that you will give it, or tell us that you cannot, from this page:
{confirm_url}

Your proposal stays readable at {proposal_url}. Once you confirm, it joins the programme as a
draft session, and we will mail you its time and room when the schedule is released.

The PyTorch Day Paris programme committee
"""


@dataclass(frozen=True)
class Person:
    username: str
    first_name: str
    last_name: str
    email: str
    bio: str = ""
    # The accounts README's tour logs in with get a password (printed once) and a confirmed
    # address; the other speakers are names behind proposals, without a usable password.
    logs_in: bool = False


ORGANIZER = Person(
    "paris-organizer", "Hélène", "Marchand", "helene.marchand@example.org", logs_in=True
)
REVIEWERS = (
    Person("paris-reviewer-1", "Sofia", "Marino", "sofia.marino@example.org", logs_in=True),
    Person("paris-reviewer-2", "Kenji", "Watanabe", "kenji.watanabe@example.org", logs_in=True),
)
SPEAKER = Person(
    "paris-speaker",
    "Amara",
    "Nwosu",
    "amara.nwosu@example.org",
    bio="Machine learning engineer working on the training platform of a Paris start-up.",
    logs_in=True,
)
CO_SPEAKER = Person(
    "paris-co-speaker",
    "Lucas",
    "Petit",
    "lucas.petit@example.org",
    bio="Maintains the GPU cluster Amara's models train on; fond of memory profiles.",
    logs_in=True,
)
OTHER_SPEAKERS = (
    Person(
        "ines-moreau",
        "Inès",
        "Moreau",
        "ines.moreau@example.org",
        bio="Builds vision models for phones and the tools to shrink them.",
    ),
    Person(
        "tomasz-kowalski",
        "Tomasz",
        "Kowalski",
        "tomasz.kowalski@example.org",
        bio="Research engineer; has reproduced more papers than he has written.",
    ),
    Person(
        "priya-raman",
        "Priya",
        "Raman",
        "priya.raman@example.org",
        bio="Writes kernels for a living and Python for pleasure.",
    ),
    Person(
        "jonas-berg",
        "Jonas",
        "Berg",
        "jonas.berg@example.org",
        bio="Leads a small team training recommendation models.",
    ),
)

# The call's extra questions, by a key the proposals' answers use.
QUESTIONS = {
    "takeaway": {
        "text": "What will attendees be able to do after your session?",
        "help_text": "One or two sentences; reviewers read this first.",
        "answer_type": "text",
        "required": True,
    },
    "given-before": {
        "text": "Have you given this session before?",
        "answer_type": "choice",
        "choices": "No, it is new\nYes, at a meetup\nYes, at a conference",
    },
    "in-french": {
        "text": "Could you give it in French?",
        "answer_type": "yes-no",
    },
}


@dataclass(frozen=True)
class DemoProposal:
    title: str
    kind: str
    track: str  # a track's slug
    audience_level: str
    abstract: str
    description: str
    speakers: tuple[str, ...]  # usernames, the one who proposed first
    written_days_ago: int
    path: tuple[str, ...]  # the states it moved to after its draft, in order
    answers: dict[str, str] = field(default_factory=dict)
    reviews: dict[str, tuple[int, str]] = field(default_factory=dict)  # reviewer: score, comment
    notes: str = ""


R1, R2 = (reviewer.username for reviewer in REVIEWERS)

PROPOSALS = (
    DemoProposal(
        title="Five things torch.export taught us about our models",
        kind="lightning-talk",
        track="inference",
        audience_level="intermediate",
        abstract="Exporting a model to a single graph shows what eager mode let you ignore.",
        description=(
            "Data-dependent shapes, Python-side caches, a `print` in `forward`: five surprises "
            "from exporting our models with `torch.export`, and the smallest change that fixed "
            "each."
        ),
        speakers=(SPEAKER.username,),
        written_days_ago=2,
        path=(),
        answers={"given-before": "No, it is new"},
    ),
    DemoProposal(
        title="Feeding the GPU: profiling and fixing input pipelines",
        kind="talk",
        track="training",
        audience_level="beginner",
        abstract=(
            "Half of our training jobs waited on data. How we found out with the PyTorch "
            "profiler, and the DataLoader settings that gave us the GPU back."
        ),
        description=(
            "We start from a real trace where the GPU idles between steps, read it together, "
            "then walk through the fixes in the order we tried them: `num_workers`, pinned "
            "memory, `persistent_workers`, prefetching, and moving decoding off the CPU. Each "
            "comes with its before-and-after step time."
        ),
        speakers=(SPEAKER.username,),
        written_days_ago=14,
        path=("submitted",),
        answers={
            "takeaway": "Read a profiler trace and tell a data-bound job from a compute-bound one.",
            "given-before": "Yes, at a meetup",
            "in-french": "yes",
        },
        reviews={
            R1: (2, "Practical and well scoped; the trace walkthrough would help many teams."),
        },
    ),
    DemoProposal(
        title="torch.compile in production: a year of graph breaks",
        kind="talk",
        track="inference",
        audience_level="intermediate",
        abstract=(
            "What a year of serving compiled models taught us: which graph breaks matter, "
            "how we keep recompilations down, and when we leave a model in eager mode."
        ),
        description=(
            "We compile a dozen models behind one inference service. The talk shows how we "
            "read `TORCH_LOGS` output, the three graph breaks that cost us most, how dynamic "
            "shapes and `mark_dynamic` stopped recompilation storms, and the warm-up we run "
            "before taking traffic."
        ),
        speakers=(SPEAKER.username,),
        written_days_ago=24,
        path=("submitted", "accepted"),
        answers={
            "takeaway": "Find and fix the graph breaks that slow a compiled model down.",
            "given-before": "No, it is new",
            "in-french": "yes",
        },
        reviews={
            R1: (3, "Exactly the field report the community asks for. Strong accept."),
            R2: (3, "Clear outline; the recompilation part alone is worth the slot."),
        },
    ),
    DemoProposal(
        title="Hands-on FSDP2: sharding a 7B model on one node",
        kind="workshop",
        track="training",
        audience_level="advanced",
        abstract=(
            "Bring a laptop: we shard a 7-billion-parameter model across the GPUs of one "
            "node with FSDP2, and measure what each option costs in memory and speed."
        ),
        description=(
            "Attendees get a notebook on a shared GPU node. We start from a model that does "
            "not fit, apply `fully_shard` layer by layer, then compare mixed precision, "
            "activation checkpointing and CPU offload against the memory profile. The last "
            "half hour saves and reloads a sharded checkpoint with `torch.distributed.checkpoint`."
        ),
        speakers=(SPEAKER.username, CO_SPEAKER.username),
        written_days_ago=26,
        path=("submitted", "accepted", "confirmed"),
        answers={
            "takeaway": "Shard a model that does not fit on one GPU, and choose the options.",
            "given-before": "Yes, at a conference",
            "in-french": "no",
        },
        reviews={
            R1: (3, "A workshop people will redo at work the next day."),
            R2: (2, "Good; check that the notebook runs on the venue's network."),
        },
        notes="We need a node with 8 GPUs for attendees; Lucas can bring the set-up scripts.",
    ),
    DemoProposal(
        title="Quantisation-aware training for on-device vision with ExecuTorch",
        kind="talk",
        track="inference",
        audience_level="intermediate",
        abstract=(
            "From a float model to an int8 one that runs on a phone: quantisation-aware "
            "training with the PT2E flow, and exporting the result with ExecuTorch."
        ),
        description=(
            "Post-training quantisation cost us four points of accuracy on a detection model. "
            "This talk shows the quantisation-aware training that won them back, the "
            "observers and fake-quant modules involved, and the export to ExecuTorch with "
            "its delegate, with latency measured on two phones."
        ),
        speakers=("ines-moreau",),
        written_days_ago=20,
        path=("submitted",),
        answers={
            "takeaway": "Run quantisation-aware training and ship the model with ExecuTorch.",
            "given-before": "No, it is new",
            "in-french": "yes",
        },
        reviews={
            R1: (3, "On-device is under-represented in our programme; solid content."),
            R2: (2, "Good, if the latency numbers hold up on more than two phones."),
        },
    ),
    DemoProposal(
        title="What use_deterministic_algorithms really guarantees",
        kind="lightning-talk",
        track="training",
        audience_level="any",
        abstract="Two runs, same seed, different losses: ten minutes on where GPU "
        "non-determinism comes from and what PyTorch's switch does about it.",
        description=(
            "Atomic adds, cuDNN's algorithm choice and data order: the usual suspects, what "
            "`torch.use_deterministic_algorithms(True)` forbids, and the environment "
            "variable it still needs."
        ),
        speakers=("tomasz-kowalski",),
        written_days_ago=12,
        path=("submitted",),
        answers={
            "takeaway": "Make a training run reproducible, and know what that costs.",
            "given-before": "No, it is new",
            "in-french": "no",
        },
        reviews={
            R2: (2, "A classic question answered in ten minutes: fits a lightning slot."),
        },
    ),
    DemoProposal(
        title="Triton kernels from a PyTorch user's point of view",
        kind="talk",
        track="training",
        audience_level="advanced",
        abstract=(
            "When a fused kernel is worth writing, how to write it in Triton, and how to "
            "register it so that torch.compile and autograd keep working."
        ),
        description=(
            "We fuse a normalisation and an activation that the compiler keeps apart, "
            "benchmark it against the eager and compiled versions, and wrap it with "
            "`torch.library` so that it composes with `torch.compile`."
        ),
        speakers=("priya-raman",),
        written_days_ago=22,
        path=("submitted", "waitlisted"),
        answers={
            "takeaway": "Decide whether a custom kernel pays off, and register one properly.",
            "given-before": "Yes, at a conference",
            "in-french": "no",
        },
        reviews={
            R1: (2, "Good material, but close to last year's kernel talk."),
            R2: (1, "Narrow audience for a one-day event; a workshop might suit it better."),
        },
    ),
    DemoProposal(
        title="Why we rewrote our training loop three times",
        kind="lightning-talk",
        track="training",
        audience_level="beginner",
        abstract="From a hand-written loop to a framework and back: what we learnt.",
        description="A story of three rewrites, told in ten minutes.",
        speakers=("jonas-berg",),
        written_days_ago=18,
        path=("submitted", "rejected"),
        answers={
            "takeaway": "Know when a training framework helps and when it gets in the way.",
            "given-before": "Yes, at a meetup",
            "in-french": "no",
        },
        reviews={
            R1: (1, "The abstract does not say what the audience takes home."),
            R2: (0, "Too little detail to judge; no PyTorch specifics."),
        },
    ),
    DemoProposal(
        title="Serving large language models with paged attention in PyTorch",
        kind="talk",
        track="inference",
        audience_level="advanced",
        abstract=(
            "How paged attention keeps GPU memory busy when requests vary in length, "
            "implemented with FlexAttention and served behind a batching scheduler."
        ),
        description=(
            "The KV cache as pages, a block table per request, and FlexAttention's block "
            "masks to read it; then continuous batching, and what the throughput looks like "
            "against a padded baseline."
        ),
        speakers=("tomasz-kowalski",),
        written_days_ago=25,
        path=("submitted", "accepted", "declined"),
        answers={
            "takeaway": "Understand paged attention and build it with FlexAttention.",
            "given-before": "No, it is new",
            "in-french": "no",
        },
        reviews={
            R1: (3, "Timely, and FlexAttention deserves a talk."),
            R2: (2, "Strong; would be great with a live benchmark."),
        },
    ),
    DemoProposal(
        title="Mixed precision on Apple silicon with the MPS backend",
        kind="talk",
        track="training",
        audience_level="intermediate",
        abstract="Training in bfloat16 on a laptop's GPU: what works on MPS today.",
        description=(
            "Autocast on the MPS device, the operations that still fall back to the CPU, and "
            "how to spot them."
        ),
        speakers=("priya-raman",),
        written_days_ago=16,
        path=("submitted", "withdrawn"),
        answers={
            "takeaway": "Train small models in mixed precision on a Mac.",
            "given-before": "No, it is new",
            "in-french": "no",
        },
    ),
)
