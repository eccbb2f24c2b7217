"""A tiny xDSL compiler that embeds llc's dialects and a pass (docs/embedding.md).

python examples/embed/my_compiler.py
"""

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from llc.dialects.tl import TL
from llc.passes.strip_layouts import StripLayoutsPass

SOURCE = """
#blocked = #tl.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @iota() -> tensor<512xi32, #blocked> {
  %r = tl.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
  func.return %r : tensor<512xi32, #blocked>
}
"""


def compile_source(text: str) -> str:
    ctx = Context()
    for dialect in (Builtin, Func, Arith, TL):
        ctx.load_dialect(dialect)
    module = Parser(ctx, text).parse_module()
    PassPipeline((StripLayoutsPass(),)).apply(ctx, module)
    module.verify()
    return str(module)


if __name__ == "__main__":
    print(compile_source(SOURCE))
