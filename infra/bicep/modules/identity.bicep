// The user-assigned managed identity the function app runs as. One identity
// serves the host (deployment storage, AzureWebJobsStorage, Application
// Insights) and the handler (Cosmos DB through azidentity and the trigger).

@description('Name of the user-assigned managed identity.')
param name string

@description('Azure region.')
param location string

@description('Tags applied to the identity.')
param tags object = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output name string = identity.name
output principalId string = identity.properties.principalId
output clientId string = identity.properties.clientId
