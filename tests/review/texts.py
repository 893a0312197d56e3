"""PR descriptions in three shapes, written from a dict of claimed values (the truth, or lies).

``seed_shape``: the community template as plain text, with the full evidence log
(the shape of seed 000); ``markdown_shape``: ``# 【...】`` headings and fenced
blocks; ``english_shape``: English headings, pytest output, a torchparity log digest.
"""

from __future__ import annotations

from typing import Any

from tests.review.fixtures import API, SUB_NEW, SUB_OLD, SUB_PATH, BackendRepo

LIE_SHA = "3" * 40


def truth(r: BackendRepo) -> dict[str, Any]:
    return {
        "api": API,
        "target": "v2.7.1",
        "covered": "master、v2.7.1",
        "maintenance": "v2.9.0、v2.10.0",
        "source": r.source,
        "base": r.base,
        "file_sha": r.file_sha256,
        "sub_old": SUB_OLD,
        "sub_new": SUB_NEW,
        "grep_count": "0",
        "docs_base": r.docs_base,
        "docs_commit": r.docs_commit,
        "docs_pr": "202",
        "a2": "支持",
        "a3": "支持",
        "a5": "暂不支持",
        "torch_env": "2.7.1+cpu",
        "torch_probe": "2.7.1+cpu",
        "module": "__main__",
        "tests": [
            ("test_enable_grad", "ok"),
            ("test_no_grad", "ok"),
            ("test_set_grad_enabled_clone", "ok"),
        ],
        "ran": 3,
        "status": "OK",
        "grep_c": "3",
        "log_sha": "",
        "baseline": r.base,
        "docs_api": API,
    }


def lies(r: BackendRepo) -> dict[str, Any]:
    v = truth(r)
    v.update(
        {
            "target": "v2.11.0",
            "covered": "master、v2.9.0",
            "maintenance": "v2.9.0、v2.7.1",
            "file_sha": r.old_file_sha256,
            "sub_new": SUB_OLD,
            "grep_count": "2",
            "docs_base": "4" * 40,
            "a5": "支持",
            "torch_env": "2.7.2+cpu",
            "module": "test.npu.test_grad",
            "status": "OK",
            "grep_c": "5",
            "tests": [
                ("test_enable_grad", "ok"),
                ("test_no_grad", "FAIL"),
                ("test_set_grad_enabled_clone", "ok"),
                ("test_ghost", "ok"),
            ],
            "ran": 4,
            "baseline": LIE_SHA,
            "docs_api": API.replace(".clone", ".copy"),
        }
    )
    return v


def _unittest_lines(v: dict[str, Any], new_format: bool = True) -> str:
    out = []
    for name, outcome in v["tests"]:
        qual = f"{v['module']}.TestGrad.{name}" if new_format else f"{v['module']}.TestGrad"
        out.append(f"{name} ({qual}) ... {outcome}")
    return "\n".join(out)


def seed_shape(v: dict[str, Any]) -> str:
    return f"""【合入来源】

• issue/工单

• 结果 Issue：{v["api"]} API 一致性补齐

【分支范围】

本 PR 面向 {v["target"]} 目标分支。

本任务整体覆盖：

{v["covered"]}

{v["maintenance"]} 已进入维护阶段，不再合入新特性或本类新增测试，因此本任务
不再对这两个分支作补齐要求。

【修改方案】

本次仅补充 {v["api"]} 的 NPU 单元测试。

修改文件：

test/npu/test_grad.py

整改后提交：

源分支：pr/clone-v2.7.1
Commit：{v["source"]}
提交标题：test: add clone coverage for set_grad_enabled
文件 SHA-256：{v["file_sha"]}

同时将 {SUB_PATH} 子模块从 {v["sub_old"]} 更新到 {v["sub_new"]}。

【社区用例检索与新增必要性】

在 origin/v2.7.1（{v["base"]}）中执行：

git grep -n -E \\
  'set_grad_enabled.*clone' \\
  -- test

直接 clone 测试匹配数：

{v["grep_count"]}

【资料变更】

涉及。

当前 Torch-NPU Native API 资料仅登记父 API，缺少 clone() 子方法，因此本任务另行提交资料补齐 PR。

资料补齐信息：

目标分支：master
源分支：docs/clone
基线提交：{v["docs_base"]}
资料提交：{v["docs_commit"]}
资料 PR：[PR #{v["docs_pr"]}](https://example.invalid/pull/{v["docs_pr"]})

资料修改文件：

docs/zh/api/native_api/pytorch_2-7-1/torch.md
docs/zh/api/native_api/pytorch_2-11-0/torch.md

资料中将 clone() 作为父 API 的子方法登记，支持状态与父 API 保持一致：

• Atlas A2 训练系列产品：{v["a2"]}；
• Atlas A3 训练系列产品：{v["a3"]}；
• Ascend 950DT：{v["a5"]}。

【接口变更】

不涉及。

【功能验证】

环境

目标分支：v2.7.1
torch：{v["torch_env"]}
torch-npu：2.7.1.post2

命令

python test/npu/test_grad.py -v

完整原始输出

==================================================
TARGET_BRANCH=v2.7.1
COMMIT={v["source"]}
PYTHON=envs/torch_npu_2.7.1/bin/python
TEST_FILE=/tmp/tests_590/v2.7.1/test/npu/test_grad.py
TEST_FILE_SHA256={v["file_sha"]}
==================================================

===== ENVIRONMENT PROBE =====
python_version=3.11.15
torch_version={v["torch_probe"]}
torch_npu_version=2.7.1.post2
npu_available=True
npu_device_count=1
ENVIRONMENT_PROBE_EXIT_CODE=0

===== FULL TEST FILE =====
COMMAND=env -u PYTHONPATH PYTHONNOUSERSITE=1 envs/torch_npu_2.7.1/bin/python /tmp/tests_590/v2.7.1/test/npu/test_grad.py -v
{_unittest_lines(v)}

----------------------------------------------------------------------
Ran {v["ran"]} tests in 0.361s

{v["status"]}
FULL_TEST_EXIT_CODE=0

RESULT=PASS

【CheckList】

• 测试结束后恢复线程 grad mode
"""


def markdown_shape(v: dict[str, Any]) -> str:
    tests = _unittest_lines(v, new_format=False)
    return f"""# 【合入来源】

- [x] issue/工单

- 结果 Issue：[{v["docs_api"]} API 一致性补齐](https://example.invalid/issues/1)

# 【分支范围】

本 PR 面向 `{v["target"]}` 目标分支。

# 【修改方案】

修改文件：

```text
test/npu/test_grad.py
```

```text
Commit：{v["source"]}
文件 SHA-256：{v["file_sha"]}
```

1. 将 `{SUB_PATH}` gitlink 从 `{v["sub_old"]}` 更新到 `{v["sub_new"]}`。

# 【社区用例检索与新增必要性】

在 `origin/v2.7.1`（`{v["base"]}`）中执行：

```bash
git grep -c -E 'def test_' -- test
```

匹配数：

```text
{v["grep_c"]}
```

# 【资料变更】

已检查 master 分支的 native API 文档目录，目标 API 已有对应条目。

# 【功能验证】

| 组件 | 版本 |
|------|------|
| torch | {v["torch_env"]} |

```bash
python -c 'import torch; print("torch=" + torch.__version__)'
python test/npu/test_grad.py -v
```

```text
torch={v["torch_probe"]}
{tests}

----------------------------------------------------------------------
Ran {v["ran"]} tests in 0.2s

{v["status"]}
```

生成的用例：

```bash
python test/npu/test_generated.py -v
```

```text
test_add_npu (__main__.TestOpsPRIVATEUSE1) ... ok
test_sub_npu (__main__.TestOpsPRIVATEUSE1) ... ok

----------------------------------------------------------------------
Ran 2 tests in 0.1s

OK
```

# 【CheckList】

- [x] PR标题正确使用类型标签
"""


def english_shape(v: dict[str, Any]) -> str:
    outcome = {"ok": "PASSED", "FAIL": "FAILED"}
    nodes = "\n".join(
        f"test/npu/test_grad.py::TestGrad::{name} {outcome[o]} [ {100 * (i + 1) // len(v['tests'])}%]"
        for i, (name, o) in enumerate(v["tests"])
    )
    return f"""## Summary

Adds `test_set_grad_enabled_clone` for `{v["api"]}` on NPU.

Target branch: {v["target"]}

## Changes

- Commit: {v["source"]}
- Baseline commit: {v["baseline"]}
- SHA-256 of test/npu/test_grad.py: {v["file_sha"]}
- Submodule {SUB_PATH} updated from {v["sub_old"]} to {v["sub_new"]}

## Existing tests

Searched in `v2.7.1` (`{v["base"]}`):

```bash
git grep -n 'set_grad_enabled' -- test
```

Matches: {v["grep_count"]}

## Documentation

The docs already have an entry for `{v["docs_api"]}` on master.

## Verification

```
$ python -m pytest test/npu/test_grad.py -v
{nodes}
============================== {v["ran"]} passed in 0.12s ===============================
```

Complete raw output (SHA-256 `{v["log_sha"]}`; check it with `torchparity show 1 --target v2.7.1`).
"""
