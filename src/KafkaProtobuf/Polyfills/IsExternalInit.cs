#if NETSTANDARD2_0
namespace System.Runtime.CompilerServices;

/// <summary>Lets netstandard2.0 compile records and init-only setters (the type the compiler marks them with).</summary>
internal static class IsExternalInit
{
}
#endif
