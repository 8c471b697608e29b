"""Comments in the C sources that name a file which does not exist (TAP
helper of tests/tools/docs.sh). A comment's file name is looked for as
written (from the repository root, then from the commenting file's folder
and its parents), or, written alone, anywhere in the repository; a name
with a placeholder (STEM.c, lessons/ID/quiz.json) or a wildcard
(result_*.c) must match a pattern's file; a system header may be one of
/usr/include's; a built file is one the Makefile names. Other projects'
files that comments name on purpose are listed below with their owner.
Usage: comment_files.py ROOT; prints FILE:LINE: NAME for each miss."""
import fnmatch, os, re, sys

root = sys.argv[1]
# Named as another project's file, with its owner beside it in the comment.
ELSEWHERE = {
    'memory.py': "PyTorch's torch/cuda/memory.py (_format_size)",
    'nvml.h': "NVIDIA's NVML header, which the driver probe does without",
    # the training planner (lab/plan/) cites the code it reproduces
    'config.json': "a Hugging Face model's config.json, which a learner pastes",
    'karpathy/llm.c': "the llm.c repository", 'llm.c': "the llm.c project",
    'train_gpt2.cu': "llm.c's GPU trainer", 'train_gpt2.c': "llm.c's CPU reference",
    'configuration_gpt2.py': "transformers", 'configuration_llama.py': "transformers",
    'configuration_bert.py': "transformers", 'modeling_gpt2.py': "transformers",
    'modeling_llama.py': "transformers", 'modeling_bert.py': "transformers",
    'optimization.py': "transformers' Adafactor", 'peft/tuners/lora/layer.py': "PEFT's LoRA layer",
    'accumulate_grad.h': "PyTorch's autograd", 'torch/optim/adamw.py': "PyTorch",
    'sgd.py': "PyTorch's torch/optim/sgd.py", 'optim/optimizer.py': "PyTorch's torch/optim/optimizer.py",
}
SKIP = {'.git', 'node_modules', 'third_party'}
files, dirs = [], set()
for d, sub, names in os.walk(root):
    sub[:] = [s for s in sub if s not in SKIP and not s.startswith('build')]
    rel = os.path.relpath(d, root)
    if rel != '.': dirs.add(rel)
    files += [os.path.normpath(os.path.join(rel, n)) for n in names]
fileset, basenames = set(files), {os.path.basename(f) for f in files}
makefile = open(os.path.join(root, 'Makefile'), encoding='utf-8').read() if os.path.exists(os.path.join(root, 'Makefile')) else ''
system = set()
for inc in ('/usr/include', '/usr/local/cuda/include'):
    for d, _, names in os.walk(inc):
        system.update(names)

EXT = r'(?:c|h|cu|cuh|py|mjs|js|sh|md|json|html|css|txt)'
TOKEN = re.compile(r'(?<![\w./*-])((?:[\w.*-]+/)*[\w*-]+\.' + EXT + r')(?![\w/])')


def comments(text):
    """(line, body) of each /* */ and // comment, string literals skipped."""
    i, n = 0, len(text)
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j
            yield text.count('\n', 0, i) + 1, text[i + 2:j]
            i = j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            yield text.count('\n', 0, i) + 1, text[i + 2:j]
            i = j
        elif text[i] in '"\'':
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        else:
            i += 1


def exists(name, where):
    if name in ELSEWHERE or (os.path.basename(name) in system and '/' not in name.replace('openssl/', '')):
        return True
    placeholder = re.compile(r'(?<![A-Za-z])[A-Z][A-Z0-9]+(?![a-z])')  # STEM, ID, NAME, YYYY
    if placeholder.search(name) or '*' in name:  # lab/experiments/STEM.c, lessons/ID/quiz.json, result_*.c
        if '/' not in name and '*' not in name:
            return True  # a name's pattern alone (gpulab-report-LESSON-YYYY-MM-DD.md): written, not kept
        pat = placeholder.sub('*', name)
        return any(fnmatch.fnmatch(f, pat) or fnmatch.fnmatch(f, '*/' + pat) for f in files)
    if '/' not in name:
        return name in basenames or name in makefile
    if name.startswith('build/'):  # a built file: one the Makefile writes
        return os.path.basename(name) in makefile
    d = where
    while True:
        p = os.path.normpath(os.path.join(d, name))
        if p in fileset or p.rstrip('/') in dirs:
            return True
        if not d:
            return False
        d = os.path.dirname(d)


for f in sorted(files):
    if not re.match(r'(lab|kernels|server|wasm|tools|tests|bench)/.*\.(c|h|cu|cuh)$', f):
        continue
    text = open(os.path.join(root, f), encoding='utf-8', errors='replace').read()
    for line, body in comments(text):
        for m in TOKEN.finditer(body):
            if not exists(m.group(1), os.path.dirname(f)):
                print(f'{f}:{line + body.count(chr(10), 0, m.start())}: {m.group(1)}')
