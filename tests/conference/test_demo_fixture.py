"""The demo fixture transcribes the Sched page of PyTorch Conference Europe 2026 exactly.

One table per family of fields, each compared whole with the database, so a wrong value, an extra
row and a missing one all fail. Every expected value is copied from the saved page (kept in
../shared/seeds/ beside the repository), not re-parsed from it; the slugs are ours. Long texts
(descriptions, bios) are checked by their number of lines and their first and last six words.
Characters that look like ASCII but are not (the page's non-breaking hyphens U+2011 and curly
apostrophes U+2019) are written as escapes so they stay visible.
"""

import datetime

import pytest
from django.core.management import call_command

from conference.models import Conference, Room, Track
from sessions.models import Attachment, Session, SessionSpeaker
from speakers.models import Speaker

pytestmark = pytest.mark.django_db

APRIL_8 = datetime.date(2026, 4, 8)

# slug: title, kind, local time on 8 April, room, track, speakers in billing order (the byline's
# order, with the speakers block's spelling of each name).
SESSIONS = {
    "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds": (
        "Live Migration of PyTorch GPU Nodes From Azure To European Clouds",
        "lightning-talk",
        "10:35-10:45",
        "Central Room",
        "Security & Privacy",
        ["Mike Krom"],
    ),
    "beyond-json-rpc-scaling-model-context-protocols-with-grpc-in-the-pytorch-ecosystem": (
        "Beyond JSON-RPC: Scaling Model Context Protocols With gRPC in the PyTorch Ecosystem",
        "talk",
        "10:35-11:00",
        "Junior Stage",
        "Agents & Interop",
        ["Ashesh Vidyut", "Madhav Bissa"],
    ),
    "achieving-sota-gemm-performance-a-cutedsl-backend-for-pytorch-inductor": (
        "Achieving SOTA GEMM Performance: A CuTeDSL Backend for PyTorch Inductor",
        "lightning-talk",
        "10:50-11:00",
        "Master Stage",
        "Frameworks & Compilers",
        ["Nikhil Patel"],
    ),
    "accelerating-pytorch-models-with-torchcompiles-c-wrapper-mode": (
        "Accelerating PyTorch Models With Torch.compile's C++ Wrapper Mode",
        "lightning-talk",
        "11:05-11:15",
        "Junior Stage",
        "Frameworks & Compilers",
        ["Bin Bao"],
    ),
    # The speakers block spells him in lower case; the byline says “Hyunkyun Moon”.
    "not-all-tokens-are-equal-semantic-kv-cache-for-agentic-llm-serving": (
        "Not All Tokens Are Equal: Semantic KV-Cache for Agentic LLM Serving",
        "lightning-talk",
        "11:20-11:30",
        "Central Room",
        "Inference & Production",
        ["Maroon Ayoub", "hyunkyun moon"],
    ),
    "enabling-the-audio-modality-for-language-models": (
        "Enabling the Audio Modality for Language Models",
        "lightning-talk",
        "11:35-11:45",
        "Founders Cafe",
        "GenAI & Multimodal",
        ["Eustache Le Bihan"],
    ),
    "accelerating-complex-valued-tensors-with-torchcompile": (
        "Accelerating Complex-Valued Tensors With Torch.compile",
        "talk",
        "11:35-12:00",
        "Junior Stage",
        "Frameworks & Compilers",
        ["Hameer Abbasi"],
    ),
    # Billed Ringlein first; the speakers block lists van Lunteren first.
    "portable-high-performance-llm-serving-a-triton-backend-for-vllm": (
        "Portable High\u2011Performance LLM Serving: A Triton Backend for VLLM",
        "talk",
        "11:35-12:00",
        "Master Stage",
        "Inference & Production",
        ["Burkhard Ringlein", "Jan van Lunteren"],
    ),
    "from-hugging-face-to-handheld-scaling-llm-deployment-with-litert-generative-api": (
        "From Hugging Face To Handheld: Scaling LLM Deployment With LiteRT Generative API",
        "lightning-talk",
        "13:30-13:40",
        "Central Room",
        "Inference & Production",
        ["Cormac Brick", "Weiyi Wang"],
    ),
    "optimizing-cpu-llm-inference-in-pytorch-lessons-from-vllm": (
        "Optimizing CPU LLM Inference in PyTorch: Lessons From VLLM",
        "talk",
        "13:30-13:55",
        "Founders Cafe",
        "Inference & Production",
        ["Crefeda Rodrigues", "Fadi Arafeh"],
    ),
    "slash-llm-cold-start-times-by-pre-distributing-gpu-caches": (
        "Slash LLM Cold-Start Times by Pre-distributing GPU Caches",
        "lightning-talk",
        "13:45-13:55",
        "Central Room",
        "Inference & Production",
        ["Billy McFall", "Maryam Tahhan"],
    ),
    # Billed Biran first; the speakers block lists Suleiman first (here and in the next talk).
    "pluggable-pytorch-llm-inference-architecture-with-vllm-and-aws-neuron-backends": (
        "Pluggable PyTorch LLM Inference Architecture With VLLM and AWS Neuron Backends",
        "lightning-talk",
        "14:00-14:10",
        "Junior Stage",
        "Inference & Production",
        ["Yahav Biran", "Maen Suleiman"],
    ),
    "backpropagation-free-optimization-in-pytorch": (
        "Backpropagation-Free Optimization in PyTorch",
        "lightning-talk",
        "14:00-14:10",
        "Central Room",
        "Training Systems",
        ["Andrii Krutsylo"],
    ),
    "debugging-the-undebuggable-introducing-torchdistributeddebug": (
        "Debugging the Undebuggable: Introducing Torch.distributed.debug",
        "lightning-talk",
        "14:00-14:10",
        "Founders Cafe",
        "Training Systems",
        ["Tristan Rice"],
    ),
    "distributed-ai-without-the-infrastructure-tax": (
        "Distributed AI Without the Infrastructure Tax",
        "lightning-talk",
        "14:15-14:25",
        "Junior Stage",
        "Inference & Production",
        ["Yahav Biran", "Maen Suleiman"],
    ),
    "scaling-recommendation-systems-to-2k-gpus-and-beyond": (
        "Scaling Recommendation Systems To 2K GPUs and Beyond",
        "lightning-talk",
        "14:15-14:25",
        "Founders Cafe",
        "Training Systems",
        ["Zain Huda"],
    ),
    # “Dave” as in the speakers block; the byline says “David”.
    "torch-spyre-compiling-to-a-multi-core-dataflow-accelerator-with-inductor": (
        "Torch-Spyre: Compiling To a Multi-core Dataflow Accelerator With Inductor",
        "lightning-talk",
        "14:30-14:40",
        "Junior Stage",
        "Frameworks & Compilers",
        ["Dave Grove", "Olivier Tardieu"],
    ),
    "every-millisecond-counts-the-fine-tuning-journey-of-an-ultra-efficient-pytorch-model-for-the-edge": (
        "Every Millisecond Counts: The Fine-tuning Journey of an Ultra-Efficient PyTorch Model for the Edge",
        "lightning-talk",
        "14:30-14:40",
        "Central Room",
        "Inference & Production",
        ["Pavel Macenauer"],
    ),
    "seamless-integration-custom-kernels-in-the-torchcompile-stack-without-graphbreaks": (
        "Seamless Integration: Custom Kernels in the Torch.compile Stack Without Graphbreaks",
        "talk",
        "14:30-14:55",
        "Master Stage",
        "Frameworks & Compilers",
        ["Kshiteej Kalambarkar", "Masaki Kozuki", "Pawel Gadzinski"],
    ),
    "from-responses-to-trajectories-multi-turn-and-multi-environment-reinforcement-learning": (
        "From Responses To Trajectories: Multi-Turn and Multi-Environment Reinforcement Learning",
        "talk",
        "14:30-14:55",
        "Founders Cafe",
        "Training Systems",
        ["Kashif Rasul", "Sergio Paniego Blanco"],
    ),
    # The byline ends “& Thomas Ortner, IBM Research Europe - Zurich”: that dash is a company's.
    "building-a-pytorch-native-vllm-plugin-for-ibm-spyre": (
        "Building a PyTorch\u2011native VLLM Plugin for IBM Spyre",
        "lightning-talk",
        "14:45-14:55",
        "Junior Stage",
        "Frameworks & Compilers",
        ["Thomas Parnell", "Thomas Ortner"],
    ),
    # This dash, and the soccer talk's below, belong to the title.
    "trinity-large-torchtitan-on-2000-b300s": (
        "Trinity Large - Torchtitan on 2000+ B300s",
        "lightning-talk",
        "15:25-15:35",
        "Founders Cafe",
        "Training Systems",
        ["Matej Sirovatka"],
    ),
    "bridging-the-hardware-gap-with-code-harnesses-on-the-hugging-face-kernels-hub": (
        "Bridging the Hardware Gap With Code Harnesses on the Hugging Face Kernels Hub",
        "talk",
        "15:25-15:50",
        "Master Stage",
        "Agents & Interop",
        ["Ben Burtenshaw"],
    ),
    "faster-than-sota-kernels-in-torchcompile-with-subgraph-fusions-and-custom-op-autotuning": (
        "Faster Than SOTA Kernels in Torch.compile With Subgraph Fusions and Custom Op Autotuning",
        "lightning-talk",
        "15:40-15:50",
        "Founders Cafe",
        "Frameworks & Compilers",
        ["Elias Ellison", "Paul Zhang"],
    ),
    "why-logging-isnt-enough-making-pytorch-training-regressions-visible-in-practice": (
        "Why Logging Isn\u2019t Enough: Making PyTorch Training Regressions Visible in Practice",
        "lightning-talk",
        "15:55-16:05",
        "Central Room",
        "Training Systems",
        ["Sahana Venkatesh"],
    ),
    "from-gradients-to-governance-making-pytorch-lineage-aware": (
        "From Gradients To Governance: Making PyTorch Lineage-Aware",
        "talk",
        "15:55-16:20",
        "Master Stage",
        "Responsible AI & Compliance",
        ["Kateryna Romashko", "Clodagh Walsh"],
    ),
    "ball-tracking-and-detection-in-soccer-videos-comparison-of-vlms-and-traditional-pipelines": (
        "Ball Tracking and Detection in Soccer Videos - Comparison of VLMs and Traditional Pipelines",
        "lightning-talk",
        "16:10-16:20",
        "Central Room",
        "Applications & Case Studies",
        ["Maciej Szymkowski"],
    ),
    "bridging-the-gap-engineering-compliant-glass-box-medical-ai-with-pytorch": (
        'Bridging the Gap: Engineering Compliant "Glass Box" Medical AI With PyTorch',
        "lightning-talk",
        "16:25-16:35",
        "Founders Cafe",
        "Applications & Case Studies",
        ["Muhammad Saqib Hussain", "Mohaddisa Maryam"],
    ),
    "de-mystifying-pytorch-for-asics-when-and-why-to-move-your-development-to-ai-accelerators": (
        "De-mystifying PyTorch for ASICs: When (and Why) To Move Your Development To AI Accelerators",
        "talk",
        "16:25-16:50",
        "Central Room",
        "Frameworks & Compilers",
        ["Alpha Romer Coma"],
    ),
}

# slug: number of lines, first and last six words.
DESCRIPTIONS = {
    "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds": (
        12,
        "Many European PyTorch teams run their … ML infrastructure without rewriting your stack",
    ),
    "beyond-json-rpc-scaling-model-context-protocols-with-grpc-in-the-pytorch-ecosystem": (
        7,
        "Right now, MCP mostly relies on … without throwing away your existing infra.",
    ),
    "achieving-sota-gemm-performance-a-cutedsl-backend-for-pytorch-inductor": (
        5,
        "Matrix multiplication is a central compute … or developers to maintain handwritten kernels.",
    ),
    "accelerating-pytorch-models-with-torchcompiles-c-wrapper-mode": (
        5,
        "This lightning talk introduces torch.compile's C++ … to build faster machine learning applications.",
    ),
    "not-all-tokens-are-equal-semantic-kv-cache-for-agentic-llm-serving": (
        5,
        "Agentic AI workloads - tree-of-thought exploration, … serving stack from request-centric to workload-aware.",
    ),
    "enabling-the-audio-modality-for-language-models": (
        5,
        "As the maintainer of everything audio … standardized modality for the open-source community.",
    ),
    "accelerating-complex-valued-tensors-with-torchcompile": (
        5,
        "torch.compile has been invaluable in accelerating … size by JIT-ing kernels on demand.",
    ),
    "portable-high-performance-llm-serving-a-triton-backend-for-vllm": (
        7,
        "Today, vLLM is the de-facto industry … kernel improvements, and launch grid optimizations.",
    ),
    "from-hugging-face-to-handheld-scaling-llm-deployment-with-litert-generative-api": (
        7,
        "This session will demonstrate the E2E … Gemini CLI or other coding agents.",
    ),
    "optimizing-cpu-llm-inference-in-pytorch-lessons-from-vllm": (
        7,
        "vLLM has emerged as a reference … upstreaming a high-performance CPU inference engine.",
    ),
    "slash-llm-cold-start-times-by-pre-distributing-gpu-caches": (
        3,
        "Are your Large Language Model (LLM) … and securing GPU-heavy workloads in production.",
    ),
    "pluggable-pytorch-llm-inference-architecture-with-vllm-and-aws-neuron-backends": (
        7,
        "As PyTorch-based LLM serving matures, the … inference while maintaining standard workflow compatibility.",
    ),
    "backpropagation-free-optimization-in-pytorch": (
        7,
        "Backpropagation is not the only mechanism … methods in real PyTorch training pipelines.",
    ),
    "debugging-the-undebuggable-introducing-torchdistributeddebug": (
        1,
        "Distributed training in PyTorch enables unprecedented … the reliability of large-scale training jobs.",
    ),
    "distributed-ai-without-the-infrastructure-tax": (
        4,
        "Running distributed AI workloads in production … the GitHub repository and extension patterns.",
    ),
    "scaling-recommendation-systems-to-2k-gpus-and-beyond": (
        5,
        "TLDR: In this session, we go … implement these solutions efficiently in production.",
    ),
    "torch-spyre-compiling-to-a-multi-core-dataflow-accelerator-with-inductor": (
        3,
        "Torch-Spyre (https://github.com/torch-spyre/torch-spyre) is an open source … ecosystem to more fully support them.",
    ),
    "every-millisecond-counts-the-fine-tuning-journey-of-an-ultra-efficient-pytorch-model-for-the-edge": (
        5,
        "From smart cameras that protect privacy … tuning with real device profiling feedback.",
    ),
    "seamless-integration-custom-kernels-in-the-torchcompile-stack-without-graphbreaks": (
        11,
        "Custom kernels are essential for high-performance … operations fit into the compiled stack.",
    ),
    "from-responses-to-trajectories-multi-turn-and-multi-environment-reinforcement-learning": (
        3,
        "Post-training of LLMs with reinforcement learning … generalization in LLMs for agentic applications.",
    ),
    "building-a-pytorch-native-vllm-plugin-for-ibm-spyre": (
        5,
        "IBM Spyre is an AI accelerator … variety of accelerators and use cases.",
    ),
    "trinity-large-torchtitan-on-2000-b300s": (
        1,
        "In this talk, we'll cover how … in your own large-scale training runs.",
    ),
    "bridging-the-hardware-gap-with-code-harnesses-on-the-hugging-face-kernels-hub": (
        11,
        "What: We share experiments and tooling … who want to use agents robustly.",
    ),
    "faster-than-sota-kernels-in-torchcompile-with-subgraph-fusions-and-custom-op-autotuning": (
        5,
        "Unlocking state-of-the-art performance, this talk reveals … by 41% across all input ranges.",
    ),
    "why-logging-isnt-enough-making-pytorch-training-regressions-visible-in-practice": (
        5,
        "PyTorch teams often log rich training … earlier and make retraining more predictable.",
    ),
    "from-gradients-to-governance-making-pytorch-lineage-aware": (
        1,
        "PyTorch was built to track how … edge, federated, and European AI ecosystems.",
    ),
    "ball-tracking-and-detection-in-soccer-videos-comparison-of-vlms-and-traditional-pipelines": (
        1,
        "Nowadays, Vision-Language Models (VLMs) have plenty … metrics like accuracy, precision, and recall.",
    ),
    "bridging-the-gap-engineering-compliant-glass-box-medical-ai-with-pytorch": (
        6,
        "While state-of-the-art models like NeuroBOLT demonstrate … that satisfy demands of healthcare regulation.",
    ),
    "de-mystifying-pytorch-for-asics-when-and-why-to-move-your-development-to-ai-accelerators": (
        9,
        "GPU availability and cost are squeezing … is ready for the ASIC leap.",
    ),
}

# slug: name, role, company (the page's "Role, Company" line, cut at its last comma).
SPEAKERS = {
    "mike-krom": ("Mike Krom", "Partner", "ACF Cybersolutions"),
    "ashesh-vidyut": ("Ashesh Vidyut", "Senior Software Engineer", "Google"),
    "madhav-bissa": ("Madhav Bissa", "Senior Software Engineer", "Google"),
    "nikhil-patel": ("Nikhil Patel", "Software Engineer", "Meta"),
    "bin-bao": ("Bin Bao", "Software Engineer", "Meta"),
    "maroon-ayoub": ("Maroon Ayoub", "Research Scientist & Architect", "IBM Research"),
    "hyunkyun-moon": ("hyunkyun moon", "MLOps Engineer", "Moreh"),
    "eustache-le-bihan": ("Eustache Le Bihan", "MLE", "Hugging Face"),
    # “, Inc.” stays with the company.
    "hameer-abbasi": ("Hameer Abbasi", "Senior Software Engineer I", "OpenTeams, Inc."),
    "jan-van-lunteren": ("Jan van Lunteren", "Senior Research Scientist", "IBM Research"),
    "burkhard-ringlein": ("Burkhard Ringlein", "Research Staff Member", "IBM Research"),
    # A line naming a team and a company keeps the team in the role.
    "cormac-brick": ("Cormac Brick", "Principal Engineer, Google AI Edge", "Google"),
    "weiyi-wang": ("Weiyi Wang", "Software Engineer", "Google"),
    "crefeda-rodrigues": ("Crefeda Rodrigues", "Staff Software Engineer", "Arm"),
    "fadi-arafeh": ("Fadi Arafeh", "Senior Machine Learning Engineer", "Arm"),
    "billy-mcfall": ("Billy McFall", "Sr. Principal Software Engineer", "Red Hat"),
    "maryam-tahhan": ("Maryam Tahhan", "Principal Engineer", "Red Hat"),
    "maen-suleiman": ("Maen Suleiman", "Product Manager", "Amazon"),
    "yahav-biran": ("Yahav Biran", "Principal Architect", "Amazon"),
    "andrii-krutsylo": (
        "Andrii Krutsylo",
        "PhD Candidate, Institute of Computer Science",
        "Polish Academy of Sciences",
    ),
    "tristan-rice": ("Tristan Rice", "Software Engineer, PyTorch Distributed", "Meta"),
    "zain-huda": ("Zain Huda", "Software Engineer", "Meta"),
    "dave-grove": ("Dave Grove", "Distinguished Research Scientist", "IBM"),
    "olivier-tardieu": ("Olivier Tardieu", "Principal Research Scientist, Manager", "IBM"),
    "pavel-macenauer": ("Pavel Macenauer", "AI/ML R&D Software Lead", "NXP Semiconductors"),
    "kshiteej-kalambarkar": ("Kshiteej Kalambarkar", "Software Engineer Frameworks", "NVIDIA"),
    "masaki-kozuki": ("Masaki Kozuki", "Software Engineer", "NVIDIA"),
    "pawel-gadzinski": ("Pawel Gadzinski", "Senior Performance Engineer - Deep Learning", "NVIDIA"),
    "kashif-rasul": ("Kashif Rasul", "Research Scientist", "Hugging Face"),
    "sergio-paniego-blanco": ("Sergio Paniego Blanco", "Machine Learning Engineer", "Hugging Face"),
    "thomas-parnell": ("Thomas Parnell", "Principal Research Scientist", "IBM Research"),
    "thomas-ortner": ("Thomas Ortner", "Research Scientist", "IBM Research Europe - Zurich"),
    "matej-sirovatka": ("Matej Sirovatka", "Research Engineer", "Prime Intellect"),
    "ben-burtenshaw": ("Ben Burtenshaw", "Community", "Hugging Face"),
    "elias-ellison": ("Elias Ellison", "Software Engineer", "Meta"),
    "paul-zhang": ("Paul Zhang", "Software Engineer", "Meta"),
    "sahana-venkatesh": ("Sahana Venkatesh", "Software engineer", "Wayve"),
    "kateryna-romashko": ("Kateryna Romashko", "Associate Software Engineer", "RedHat"),
    "clodagh-walsh": ("Clodagh Walsh", "Software Engineer", "Red Hat"),
    "maciej-szymkowski": (
        "Maciej Szymkowski",
        "AI Researcher and Senior Machine Learning Engineer",
        "Future Processing",
    ),
    "mohaddisa-maryam": ("Mohaddisa Maryam", "Miss", "Neurosonic Academy"),
    "muhammad-saqib-hussain": (
        "Muhammad Saqib Hussain",
        "Medical Student, AI Researcher and Neurotech Founder",
        "ClinExplain",
    ),
    "alpha-romer-coma": (
        "Alpha Romer Coma",
        "Associate Engineer, Cloud Development",
        "Kollab Philippines",
    ),
}

# slug: number of lines, first and last six words. The page cuts long bios off mid-sentence
# ("...", then "Read More →"); the fixture keeps each up to its last whole sentence, without
# the dots.
BIOS = {
    "mike-krom": (
        1,
        "I am a software architect and … Microsoft and supporting large-scale cloud migrations.",
    ),
    "ashesh-vidyut": (0, ""),
    "madhav-bissa": (1, "member, grpc-Go"),
    "nikhil-patel": (
        1,
        "Nikhil is a software engineer on … works on Inductor\u2019s CuTeDSL GEMM backend.",
    ),
    "bin-bao": (
        1,
        "Bin Bao is a software engineer … optimizations and AOTInductor for C++ deployment.",
    ),
    "maroon-ayoub": (
        1,
        "Maroon Ayoub is a systems engineer … performance efficiency, and open source integrations.",
    ),
    "hyunkyun-moon": (
        1,
        "Hyunkyun Moon is an ML Platform … open-source projects, including llm-d and vLLM.",
    ),
    "eustache-le-bihan": (
        1,
        "A 2024 MVA graduate, I now … library and strengthening support across models.",
    ),
    "hameer-abbasi": (
        1,
        "Hameer Abbasi is a Senior Software … space, including NumPy, SciPy and PyTorch.",
    ),
    "jan-van-lunteren": (
        1,
        "Jan van Lunteren is a Senior … and PhD degrees in Electrical Engineering.",
    ),
    "burkhard-ringlein": (
        1,
        "Dr. Burkhard Ringlein is a Research … for low-latency, high-throughput machine learning applications.",
    ),
    "cormac-brick": (
        1,
        "Cormac Brick is a Principal Engineer … specializes in frameworks and on-device AI.",
    ),
    "weiyi-wang": (1, "Weiyi Is lead software engineer on … on compiler, NPU and GenAI stack."),
    "crefeda-rodrigues": (
        1,
        "Crefeda Rodrigues is a Staff Software … software optimization for Arm server CPUs.",
    ),
    "fadi-arafeh": (
        1,
        "Fadi is a Senior Machine Learning … Intelligence from the University of Manchester.",
    ),
    "billy-mcfall": (1, "Billy McFall is a software engineer … of the NVIDIA DPU into OpenShift."),
    "maryam-tahhan": (
        1,
        "Maryam is a Principal Engineer in … effectively validate and scale ML workloads.",
    ),
    "maen-suleiman": (0, ""),
    "yahav-biran": (
        1,
        "Yahav Biran is a Principal Architect … and the Journal of Systems Engineering.",
    ),
    "andrii-krutsylo": (
        1,
        "Andrii Krutsylo is a deep learning … structured optimization for adaptive, resource-efficient systems.",
    ),
    "tristan-rice": (
        1,
        "Software engineer working on PyTorch Distributed and large scale training.",
    ),
    "zain-huda": (1, "Zain works on large scale training … the authors of 2D sparse parallelism."),
    "dave-grove": (
        1,
        "David Grove is a Distinguished Research … language implementation and scalable runtime systems.",
    ),
    "olivier-tardieu": (
        1,
        "Dr. Olivier Tardieu is a Principal … He joined IBM Research in 2007.",
    ),
    "pavel-macenauer": (
        1,
        "A software lead at NXP Semiconductors … software visualizing the World around us.",
    ),
    "kshiteej-kalambarkar": (
        1,
        "Kshiteej Kalambarkar is a software engineer … in torch.compile and custom kernel integration",
    ),
    "masaki-kozuki": (1, "Masaki Kozuki is working at NVIDIA on PyTorch."),
    "pawel-gadzinski": (
        1,
        "Pawel Gadzinski is a Deep Learning … with a focus on low-precision training.",
    ),
    "kashif-rasul": (1, "Kashif has a PhD. in Mathematics from the Freie Universität Berlin."),
    "sergio-paniego-blanco": (
        1,
        "Sergio tiene una amplia trayectoria en … ha contribuido como desarrollador y mentor.",
    ),
    "thomas-parnell": (
        1,
        "Thomas received his B.Sc. and Ph.D. … before joining IBM Research in 2013.",
    ),
    "thomas-ortner": (
        1,
        "Thomas Ortner is a Research Scientist … group of Emerging Computing and Circuits.",
    ),
    "matej-sirovatka": (
        1,
        "Research Engineer at Prime Intellect, mainly … on distributed training, performance and scaling.",
    ),
    "ben-burtenshaw": (
        1,
        "Ben Burtenshaw is an MLE in … specializing in agents, LLMs, and fine-tuning.",
    ),
    "elias-ellison": (
        1,
        "Elias has been working on the … most recently on the torch.compile stack",
    ),
    "paul-zhang": (
        1,
        "Paul Zhang is currently a software … the hardware it is run on.",
    ),
    "sahana-venkatesh": (0, ""),
    "kateryna-romashko": (
        1,
        "Kateryna Romashko is a Software Engineer … Emerging Technology team at Red Hat.",
    ),
    "clodagh-walsh": (1, "Clodagh is a software engineer at … topics such as MLOps and dLLMs."),
    "maciej-szymkowski": (
        1,
        "Maciej Szymkowski, PhD, is a Senior … Computer Vision (med/transport/sport), VLMs, and LLMs.",
    ),
    "mohaddisa-maryam": (1, "I am a First Year Student of Medicine in Italy."),
    "muhammad-saqib-hussain": (
        1,
        "Muhammad Saqib is a 4th-year medical … thesis explores AI for Sleep Medicine.",
    ),
    "alpha-romer-coma": (
        3,
        "Alpha is an Associate Cloud Engineer … called sludge videos with 92% accuracy",
    ),
}

# session slug: attachment titles (the page names files without linking them).
ATTACHMENTS = {
    "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds": [
        "mike krom migration vms"
    ],
    "beyond-json-rpc-scaling-model-context-protocols-with-grpc-in-the-pytorch-ecosystem": [
        "PDF Beyond JSON RPC Scaling Model Context Protocols with gRPC in Pytorch Ecosystem Google Slides"
    ],
    "achieving-sota-gemm-performance-a-cutedsl-backend-for-pytorch-inductor": [
        "CuTeDSL Inductor Backend"
    ],
    "accelerating-pytorch-models-with-torchcompiles-c-wrapper-mode": [
        "Accelerating PyTorch Models With torch.compile's Cpp Wrapper Mode.pptx"
    ],
    "not-all-tokens-are-equal-semantic-kv-cache-for-agentic-llm-serving": [
        "not all tokens are equal pytorch eu"
    ],
    "accelerating-complex-valued-tensors-with-torchcompile": ["PyTorch EU 2026 Complex"],
    "portable-high-performance-llm-serving-a-triton-backend-for-vllm": [
        "2026 04 08 vanLunteren Ringlein PyTorch Paris pub"
    ],
    "optimizing-cpu-llm-inference-in-pytorch-lessons-from-vllm": [
        "Optimizing LLM Inference on CPU Crefeda Fadi"
    ],
    "slash-llm-cold-start-times-by-pre-distributing-gpu-caches": [
        "Slash LLM Cold Start Times by Pre distributing GPU Caches"
    ],
    "pluggable-pytorch-llm-inference-architecture-with-vllm-and-aws-neuron-backends": [
        "Pluggable PyTorch LLM pytorch 26"
    ],
    "distributed-ai-without-the-infrastructure-tax": [
        "Distributed AI Without the Infrastructure Tax pytorch 26"
    ],
    "torch-spyre-compiling-to-a-multi-core-dataflow-accelerator-with-inductor": [
        "PyTorchConEU2026 TorchSpyre v7"
    ],
    "every-millisecond-counts-the-fine-tuning-journey-of-an-ultra-efficient-pytorch-model-for-the-edge": [
        "Every Millisecond Counts export"
    ],
    "from-responses-to-trajectories-multi-turn-and-multi-environment-reinforcement-learning": [
        "From Responses To Trajectories Multi Turn and Multi Environment Reinforcement Learning"
    ],
    "trinity-large-torchtitan-on-2000-b300s": ["PTC 2026 Trinity Large & torchtitan (1)"],
    "why-logging-isnt-enough-making-pytorch-training-regressions-visible-in-practice": [
        "Making PyTorch Training Regressions Visible in Practice"
    ],
    "from-gradients-to-governance-making-pytorch-lineage-aware": [
        "Final Deck From Gradients to Governance Making PyTorch Lineage Aware"
    ],
    "ball-tracking-and-detection-in-soccer-videos-comparison-of-vlms-and-traditional-pipelines": [
        "M Szymkowski PyTorch Conference"
    ],
    "bridging-the-gap-engineering-compliant-glass-box-medical-ai-with-pytorch": [
        "Pytorch Conf 2026 Muhammad (2)"
    ],
}


@pytest.fixture(scope="module")
def demo(module_db, django_db_blocker):
    """Loaded once for the whole module: its tests only read."""
    with django_db_blocker.unblock():
        call_command("loaddata", "pytorch-eu-2026", verbosity=0)
        return Conference.objects.get(slug="pytorch-eu-2026")


def local_slot(session: Session) -> str:
    return f"{session.local_starts_at:%H:%M}-{session.local_ends_at:%H:%M}"


def abridged(text: str) -> str:
    words = text.split(" ")
    return text if len(words) <= 12 else f"{' '.join(words[:6])} … {' '.join(words[-6:])}"


def contrast_with_white(colour: str) -> float:
    def channel(hex_pair: str) -> float:
        value = int(hex_pair, 16) / 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(colour[i : i + 2]) for i in (1, 3, 5))
    luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    return 1.05 / (luminance + 0.05)


def test_demo_fixture_describes_the_conference(demo):
    assert demo.name == "PyTorch Conference Europe 2026"
    assert (demo.starts_on, demo.ends_on) == (datetime.date(2026, 4, 7), APRIL_8)
    assert demo.time_zone == "Europe/Paris"
    assert (demo.city, demo.venue) == ("Paris", "")
    assert (demo.registration_url, demo.help_url, demo.contact_email) == ("", "", "")
    assert demo.is_published is True
    # The organizer's own words; Sched's lines about its app and registration are not theirs.
    assert demo.description == "The schedule is subject to change."


def test_demo_fixture_rooms_and_tracks_match_the_page(demo):
    rooms = Room.objects.filter(conference=demo).order_by("position")
    assert [(room.name, room.slug, room.capacity) for room in rooms] == [
        ("Master Stage", "master-stage", None),
        ("Central Room", "central-room", None),
        ("Junior Stage", "junior-stage", None),
        ("Founders Cafe", "founders-cafe", None),
    ]
    assert dict(Track.objects.filter(conference=demo).values_list("slug", "name")) == {
        "agents-interop": "Agents & Interop",
        "applications-case-studies": "Applications & Case Studies",
        "frameworks-compilers": "Frameworks & Compilers",
        "genai-multimodal": "GenAI & Multimodal",
        "inference-production": "Inference & Production",
        "responsible-ai-compliance": "Responsible AI & Compliance",
        "security-privacy": "Security & Privacy",
        "training-systems": "Training Systems",
    }


def test_demo_fixture_track_colours_are_distinct_and_readable_on_white(demo):
    colours = list(Track.objects.filter(conference=demo).values_list("colour", flat=True))
    assert len(set(colours)) == 8
    assert [colour for colour in colours if contrast_with_white(colour) < 4.5] == []


def test_demo_fixture_sessions_match_the_page(demo):
    sessions = demo.sessions.select_related("room", "track")
    assert {
        session.slug: (
            session.title,
            session.kind,
            local_slot(session),
            session.room.name,
            session.track.name,
            [speaker.name for speaker in session.ordered_speakers],
        )
        for session in sessions
    } == SESSIONS
    # The page shows one day in one zone, every session published and for an intermediate audience.
    assert {
        (
            session.local_starts_at.date(),
            session.local_ends_at.date(),
            session.local_starts_at.tzname(),
            session.status,
            session.audience_level,
        )
        for session in sessions
    } == {(APRIL_8, APRIL_8, "CEST", "published", "intermediate")}
    links = SessionSpeaker.objects.filter(session__conference=demo).count()
    assert links == sum(len(row[-1]) for row in SESSIONS.values()) == 45


def test_demo_fixture_descriptions_match_the_page(demo):
    assert {
        slug: (len(description.splitlines()), abridged(description))
        for slug, description in demo.sessions.values_list("slug", "description")
    } == DESCRIPTIONS


def test_demo_fixture_speakers_match_the_page(demo):
    speakers = Speaker.objects.filter(conference=demo)
    assert {
        speaker.slug: (speaker.name, speaker.role, speaker.company) for speaker in speakers
    } == SPEAKERS
    # Joined again, role and company give back the page's line.
    assert {speaker.slug: speaker.affiliation for speaker in speakers} == {
        slug: f"{role}, {company}" for slug, (_, role, company) in SPEAKERS.items()
    }


def test_demo_fixture_bios_match_the_page(demo):
    assert {
        slug: (len(bio.splitlines()), abridged(bio))
        for slug, bio in Speaker.objects.filter(conference=demo).values_list("slug", "bio")
    } == BIOS


def test_demo_fixture_attachments_match_the_page(demo):
    attachments = Attachment.objects.filter(session__conference=demo).select_related("session")
    titles = {}
    for attachment in attachments.order_by("session__slug", "position", "pk"):
        titles.setdefault(attachment.session.slug, []).append(attachment.title)
    assert titles == ATTACHMENTS
    assert {(attachment.file.name, attachment.url) for attachment in attachments} == {("", "")}


def test_demo_fixture_objects_all_pass_full_clean(demo):
    objects = [
        demo,
        *Room.objects.filter(conference=demo),
        *Track.objects.filter(conference=demo),
        *Speaker.objects.filter(conference=demo),
        *Session.objects.filter(conference=demo),
        *SessionSpeaker.objects.filter(session__conference=demo),
        *Attachment.objects.filter(session__conference=demo),
    ]
    assert len(objects) == 149
    for obj in objects:
        obj.full_clean()


def test_demo_fixture_texts_carry_no_truncation_marks(demo):
    texts = [*Speaker.objects.filter(conference=demo).values_list("bio", flat=True)]
    texts += demo.sessions.values_list("description", flat=True)
    assert [text for text in texts if text.rstrip().endswith(("...", "…"))] == []
